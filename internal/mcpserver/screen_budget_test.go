package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// TestScreenBudget_Refused: a screen over the per-session cell budget is
// refused at start and at resize with a message naming the budget.
func TestScreenBudget_Refused(t *testing.T) {
	c := newClient(t, session.Config{})
	const want = "1000x1000 is 1000000 cells, over the screen budget of 200000 cells per session"
	if msg := c.toolError("start_process", map[string]any{"argv": []string{"cat"}, "rows": 1000, "cols": 1000}); !strings.Contains(msg, want) {
		t.Errorf("start_process 1000x1000: %q, want %q", msg, want)
	}
	var st StartResult
	c.call("start_process", map[string]any{"argv": []string{"cat"}, "rows": 1000, "cols": 200, "timeout_ms": 0}, &st)
	defer c.call("terminate_process", map[string]any{"session_id": st.SessionID, "force": true}, nil)
	if msg := c.toolError("resize_pty", map[string]any{"session_id": st.SessionID, "rows": 1000, "cols": 1000}); !strings.Contains(msg, want) {
		t.Errorf("resize_pty 1000x1000: %q, want %q", msg, want)
	}
}
