package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// TestSendInput_StdinClosedByProgram: a pipe-mode program that closed its
// stdin but still runs is not reported as exited.
func TestSendInput_StdinClosedByProgram(t *testing.T) {
	c := newClient(t, session.Config{})
	for i := range 5 {
		r := c.start(map[string]any{"argv": []string{"sh", "-c", "exec 0<&-; echo closed; exec sleep 100"}, "mode": "pipe", "until": "closed", "settle_ms": 0})
		if r.Match != "closed" {
			t.Fatalf("start %d: %q", i, r.Output)
		}
		msg := c.toolError("send_input", map[string]any{"session_id": r.SessionID, "text": "hi", "enter": true})
		for _, want := range []string{"stdin is closed", "session " + r.SessionID + " is still running", "the program closed it", "terminate_process"} {
			if !strings.Contains(msg, want) {
				t.Fatalf("attempt %d: error %q does not say %q", i, msg, want)
			}
		}
		if strings.Contains(msg, "exited") {
			t.Fatalf("attempt %d: error says exited: %q", i, msg)
		}
		c.call("terminate_process", map[string]any{"session_id": r.SessionID}, nil)
	}
}
