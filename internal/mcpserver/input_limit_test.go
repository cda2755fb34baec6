package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/session"
)

// TestInputLimit_NamedNotPolicy: a command or input over -max-input-bytes
// is refused by that limit, named with its flag, not as a policy rule,
// with or without policy rules configured.
func TestInputLimit_NamedNotPolicy(t *testing.T) {
	big := "echo " + strings.Repeat("a", 3<<20)
	for _, tc := range []struct {
		name  string
		rules policy.Rules
	}{
		{"no rules", policy.Rules{}},
		{"rules", policy.Rules{Deny: []string{"rm"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGatedTB(t, tc.rules, session.Config{}, Options{}, nil)
			sh := g.openShell(map[string]any{"shell": "bash"})
			for _, call := range []struct {
				tool string
				args map[string]any
				want []string
			}{
				{"exec_command", map[string]any{"session_id": sh.SessionID, "command": big},
					[]string{"input too large: the command is 3145733 bytes", "at most 1048576 bytes", "-max-input-bytes", "write_file"}},
				{"start_process", map[string]any{"command": big},
					[]string{"input too large: the command is 3145733 bytes", "-max-input-bytes"}},
				{"send_input", map[string]any{"session_id": sh.SessionID, "text": big, "enter": true},
					[]string{"input too large: input is 3145734 bytes", "max-input-bytes"}},
			} {
				msg := g.toolError(call.tool, call.args)
				for _, want := range call.want {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: %q does not say %q", call.tool, clipMsg(msg), want)
					}
				}
				if strings.Contains(msg, "policy") || strings.Contains(msg, "rule length") {
					t.Errorf("%s: refused as a policy rule: %q", call.tool, clipMsg(msg))
				}
			}
			if got := g.exec(sh.SessionID, "echo still here", nil); got.Output != "still here\n" {
				t.Fatalf("after the refusals: %+v", got)
			}
		})
	}
}

func clipMsg(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}
