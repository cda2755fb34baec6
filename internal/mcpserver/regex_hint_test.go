package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// TestRegexParams_LookBehindExplained: every tool that takes a regex says
// that RE2 has no look-behind and what to write instead, rather than only
// "invalid named capture".
func TestRegexParams_LookBehindExplained(t *testing.T) {
	c := newClient(t, session.Config{})
	sh := c.openShell(map[string]any{"shell": "bash"})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"read_output", map[string]any{"session_id": sh.SessionID, "until": `(?<=x)y`}},
		{"send_input", map[string]any{"session_id": sh.SessionID, "text": "", "enter": true, "until": `(?<!x)y`}},
		{"get_history", map[string]any{"session_id": sh.SessionID, "grep": `(?<=price: )\d+`}},
		{"search_output", map[string]any{"pattern": `(?<=x)y`}},
		{"retry_command", map[string]any{"session_id": sh.SessionID, "command": "true", "success_pattern": `(?<=x)y`}},
		{"run_command", map[string]any{"argv": []string{"true"}, "success_file": "/dev/null", "success_file_pattern": `(?<=x)y`}},
	} {
		msg := c.toolError(tc.tool, tc.args)
		for _, want := range []string{"not a valid RE2 regex", "RE2 has no look-behind", "capture the part you want", `\b`} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q does not say %q", tc.tool, msg, want)
			}
		}
	}
}
