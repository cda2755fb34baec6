//go:build linux

package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/mcpserver"
)

// As installed: the static agentty finds agentty-link beside itself, with
// neither -node-link nor AGENTTY_NODE_LINK, and copies itself in.
func TestDocker_InstalledLinkBesideAgentty(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	name := e.container(t)
	s := startServerWith(t, func(c *exec.Cmd) {
		c.Path, c.Args[0] = e.node, e.node
		c.Env = append(c.Env, "DOCKER_HOST="+e.host)
	})
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "docker://" + name, "argv": []string{"sh", "-c", "echo linked; exit 4"}, "mode": "pipe"}, &r)
	if out := r.Output + s.readAll(r.SessionID, 0, nil); out != "linked\n" {
		t.Fatalf("output %q, want %q", out, "linked\n")
	}
	var st struct {
		ExitCode *int `json:"exit_code"`
	}
	s.call("get_session_info", map[string]any{"session_id": r.SessionID}, &st)
	if st.ExitCode == nil || *st.ExitCode != 4 {
		t.Fatalf("exit code %v, want 4", st.ExitCode)
	}
}

// Without a link, a container host is refused with how to install one;
// nothing else of the server is affected.
func TestDocker_NoLinkSaysHow(t *testing.T) {
	t.Parallel()
	e := dockerEnv(t)
	s := startServerWith(t, func(c *exec.Cmd) {
		c.Env = append(c.Env, "DOCKER_HOST="+e.host, "AGENTTY_NODE_LINK=/no/such/agentty-link")
	})
	msg := s.toolError("start_process", map[string]any{"host": "docker://web", "argv": []string{"true"}})
	if want := "cannot start agentty-link (/no/such/agentty-link)"; !strings.Contains(msg, want) {
		t.Fatalf("error %q, want it to contain %q", msg, want)
	}
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"argv": []string{"echo", "local"}, "mode": "pipe"}, &r)
	if out := r.Output + s.readAll(r.SessionID, 0, nil); out != "local\n" {
		t.Fatalf("local output %q", out)
	}
}
