//go:build linux

package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/mcpserver"
)

// TestDocker_DevServerListening: a dev server in a container is awaited
// by its listening socket, read from the container's kernel by the node;
// the reported port answers inside the container.
func TestDocker_DevServerListening(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	s := e.serve(t)
	var st mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "mode": "pipe",
		"argv":      []string{"python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"},
		"return_on": []string{"listening", "exit"}, "until_listening": true, "timeout_ms": 30000}, &st)
	if st.Reason != "listening" || len(st.Listening) != 1 {
		t.Fatalf("start_process ended %q with listening %+v, want one socket\n%s", st.Reason, st.Listening, st.Output)
	}
	l := st.Listening[0]
	if l.Proto != "tcp" || l.Address != "127.0.0.1" || l.Port == 0 || !strings.HasPrefix(l.Command, "python") {
		t.Fatalf("listening %+v, want python3's tcp socket on 127.0.0.1", l)
	}
	var run mcpserver.RunResult
	s.call("run_command", map[string]any{"host": "docker://" + name,
		"argv": []string{"python3", "-c", fmt.Sprintf("import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:%d/').status)", l.Port)}}, &run)
	if run.ExitCode == nil || *run.ExitCode != 0 || strings.TrimSpace(run.Stdout.Text) != "200" {
		t.Fatalf("GET the reported port in the container: %+v", run)
	}
	var info mcpserver.SessionInfo
	s.call("get_session_info", map[string]any{"session_id": st.SessionID}, &info)
	if len(info.Listening) != 1 || info.Listening[0].Port != l.Port {
		t.Fatalf("get_session_info listening %+v, want port %d", info.Listening, l.Port)
	}
}
