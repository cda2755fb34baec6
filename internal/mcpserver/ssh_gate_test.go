package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/sshbackend"
)

// Commands for a remote host pass the same admit point: refusals and the
// audit log name the host.
func TestSSH_RemoteCommandsPassThePolicy(t *testing.T) {
	e := newSSHEnv(t)
	pool := sshbackend.NewPool(e.options())
	t.Cleanup(pool.Close)
	g := newGated(t, policy.Rules{Allow: []string{"echo", "bash"}}, session.Config{Remote: pool.Start, KillGrace: time.Second}, Options{Hosts: poolHosts{pool}, Remote: pool}, nil)
	host := e.srv.Target(e.srv.Addr)
	var sh OpenShellResult
	g.call("open_shell", map[string]any{"host": host, "shell": "bash", "no_rc": true}, &sh)
	var ex ExecResult
	g.call("exec_command", map[string]any{"session_id": sh.SessionID, "command": "echo remote-ok"}, &ex)
	if ex.Output != "remote-ok\n" {
		t.Fatalf("allowed exec: %+v", ex)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"exec_command", map[string]any{"session_id": sh.SessionID, "command": "echo a; rm -rf x"}},
		{"run_command", map[string]any{"host": host, "argv": []string{"rm", "-f", "x"}}},
		{"open_shell", map[string]any{"host": host, "shell": "sh"}},
	} {
		msg := g.toolError(tc.tool, tc.args)
		if !strings.Contains(msg, "rule allow") || !strings.Contains(msg, "(on "+host+")") {
			t.Fatalf("%s refusal %q does not name the rule and the host", tc.tool, msg)
		}
	}
	// Typed input: the remote tree is not visible, so every line typed into
	// a remote session is checked as a command line.
	var st StartResult
	g.call("start_process", map[string]any{"host": host, "argv": []string{"bash", "--norc", "-i"}}, &st)
	if msg := g.toolError("send_input", map[string]any{"session_id": st.SessionID, "text": "rm -rf /tmp/x", "enter": true}); !strings.Contains(msg, "rm is not on the allow list") {
		t.Fatalf("typed rm into a remote bash: %q", msg)
	}
	var sent SendResult
	g.call("send_input", map[string]any{"session_id": st.SessionID, "text": "echo typed-ok", "enter": true, "until": "^typed-ok"}, &sent)
	if !strings.Contains(sent.Output, "typed-ok") {
		t.Fatalf("allowed typed line: %+v", sent)
	}
	var run RunResult
	g.call("run_command", map[string]any{"host": host, "argv": []string{"echo", "a;b"}}, &run)
	if run.Stdout.Text != "a;b\n" {
		t.Fatalf("allowed run: %+v", run)
	}
	want := map[string]bool{"echo remote-ok (on " + host + ")": false, "echo a;b (on " + host + ")": false}
	for _, ev := range g.events() {
		if ev.Event == audit.EventExec {
			if _, ok := want[ev.Command]; ok {
				want[ev.Command] = true
			}
		}
	}
	for cmd, seen := range want {
		if !seen {
			t.Fatalf("audit log has no exec event %q", cmd)
		}
	}
}
