package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// Without an SSH backend, host is refused with a clear error by every
// tool that takes it, and nothing runs locally instead.
func TestRemoteTools_HostWithoutBackend(t *testing.T) {
	c := newClient(t, session.Config{})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"open_shell", map[string]any{"host": "user@example.invalid", "shell": "bash"}},
		{"run_command", map[string]any{"host": "user@example.invalid", "argv": []string{"true"}}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			if msg := c.toolError(tc.tool, tc.args); !strings.Contains(msg, "remote hosts are not enabled") {
				t.Fatalf("%s: %s", tc.tool, msg)
			}
		})
	}
}
