package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/session"
)

// TestCommandTools_PolicyDecides: exec_command, retry_command,
// diff_commands, run_command, open_shell and write_file go through the same
// policy as start_process; admitted commands are audited as exec events.
func TestCommandTools_PolicyDecides(t *testing.T) {
	g := newGated(t, policy.Rules{Allow: []string{"git", "ls", "python3", "bash", "echo", "true"}}, session.Config{}, Options{}, nil)
	var sh OpenShellResult
	g.call("open_shell", map[string]any{"shell": "bash", "no_rc": true}, &sh)

	var ex ExecResult
	g.call("exec_command", map[string]any{"session_id": sh.SessionID, "command": "echo allowed"}, &ex)
	if ex.Output != "allowed\n" {
		t.Fatalf("allowed exec: %+v", ex)
	}
	cases := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"exec_command", map[string]any{"session_id": sh.SessionID, "command": "ls && rm -rf x"}, []string{"rm is not on the allow list", "rule allow"}},
		{"exec_command", map[string]any{"session_id": sh.SessionID, "command": "echo $(touch y)"}, []string{"touch", "rule allow"}},
		{"retry_command", map[string]any{"session_id": sh.SessionID, "command": "curl x", "max_retries": 1}, []string{"curl", "rule allow"}},
		{"diff_commands", map[string]any{"session_id": sh.SessionID, "command_a": "ls", "command_b": "cat /etc/hosts"}, []string{"cat", "rule allow"}},
		{"run_command", map[string]any{"argv": []string{"/bin/rm", "-f", "z"}}, []string{"/bin/rm", "rule allow"}},
		{"run_command", map[string]any{"argv": []string{"ls"}, "env": map[string]string{"LD_PRELOAD": "/tmp/x.so"}}, []string{"LD_PRELOAD", "rule env"}},
		{"open_shell", map[string]any{"shell": "sh"}, []string{"is not on the allow list", "rule allow"}},
		{"write_file", map[string]any{"path": filepath.Join(filepath.Dir(g.auditPath), "..", "config", "config.toml"), "content": "x", "make_dirs": true}, []string{"protected"}},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			msg := g.toolError(tc.tool, tc.args)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Fatalf("%s error %q does not contain %q", tc.tool, msg, w)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(g.auditPath), "..", "config")); !os.IsNotExist(err) {
		t.Fatalf("write_file created the protected directory: %v", err)
	}
	var run RunResult
	g.call("run_command", map[string]any{"argv": []string{"echo", "a;b", "$(x)"}}, &run)
	if run.Stdout.Text != "a;b $(x)\n" {
		t.Fatalf("allowed run_command: %+v", run)
	}
	refusals, execs := 0, map[string]string{}
	for _, e := range g.events() {
		switch e.Event {
		case audit.EventRefusal:
			refusals++
			if e.Rule == "" || e.Tool == "" {
				t.Errorf("incomplete refusal %+v", e)
			}
		case audit.EventExec:
			execs[e.Tool] = e.Command
		}
	}
	if refusals != len(cases) {
		t.Errorf("%d refusal events, want %d", refusals, len(cases))
	}
	if execs["exec_command"] != "echo allowed" || execs["run_command"] != "echo a;b $(x)" {
		t.Errorf("exec events %v", execs)
	}
}
