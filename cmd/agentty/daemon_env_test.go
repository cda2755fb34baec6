package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/mcpserver"
)

// TestDaemon_ClientEnvironment: two clients of one daemon, started with
// different environments (a variable set in an MCP client's env, a PATH
// with the client's own tools first), each start programs that begin from
// their client's environment, as a standalone serve's do; a call's env
// still wins.
func TestDaemon_ClientEnvironment(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	client := func(mark string) *server {
		bin := t.TempDir()
		tool := filepath.Join(bin, "client-tool")
		if err := os.WriteFile(tool, []byte("#!/bin/sh\necho tool of "+mark+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return h.serve(t, []string{"CLIENT_MARK=" + mark, "PATH=" + bin + ":" + os.Getenv("PATH")})
	}
	sa, sb := client("a"), client("b")
	if ds := h.daemonsSettled(t); len(ds) != 1 {
		t.Fatalf("want both clients on one daemon, have %s; daemon log:\n%s", describe(ds), h.log(t))
	}
	const script = `echo "mark=$CLIENT_MARK"; client-tool`
	for _, c := range []struct {
		name string
		s    *server
		env  map[string]any
		want string
	}{
		{"a", sa, nil, "mark=a\ntool of a\n"},
		{"b", sb, nil, "mark=b\ntool of b\n"},
		{"b with env", sb, map[string]any{"CLIENT_MARK": "call"}, "mark=call\ntool of b\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			with := func(args map[string]any) map[string]any {
				if c.env != nil {
					args["env"] = c.env
				}
				return args
			}
			var st readResult
			c.s.call("start_process", with(map[string]any{"argv": []string{"sh", "-c", script}, "mode": "pipe", "return_on": []string{"exit"}}), &st)
			if st.Output != c.want {
				t.Errorf("start_process printed %q, want %q", st.Output, c.want)
			}
			var run mcpserver.RunResult
			c.s.call("run_command", with(map[string]any{"argv": []string{"client-tool"}}), &run)
			if want := strings.SplitN(c.want, "\n", 2)[1]; run.Stdout.Text != want {
				t.Errorf("run_command client-tool printed %q, want %q", run.Stdout.Text, want)
			}
			var sh mcpserver.OpenShellResult
			c.s.call("open_shell", with(map[string]any{"shell": "bash", "no_rc": true}), &sh)
			var ex mcpserver.ExecResult
			c.s.call("exec_command", map[string]any{"session_id": sh.SessionID, "command": script}, &ex)
			if ex.Output != c.want {
				t.Errorf("exec_command in open_shell printed %q, want %q", ex.Output, c.want)
			}
		})
	}
}
