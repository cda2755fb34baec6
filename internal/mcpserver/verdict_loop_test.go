package mcpserver

import (
	"fmt"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// TestSendInput_VerdictEveryRound types 100 lines into a REPL and two shells
// on a PTY; every reply must be exactly the line's output and the next
// prompt with reason awaiting_input. A verdict taken before the program saw
// all of the line (the input gate believing a stale or partial block) cuts
// a reply short; the rounds make a rare race show.
func TestSendInput_VerdictEveryRound(t *testing.T) {
	need(t, "python3", "bash", "sh")
	cases := []struct {
		name  string
		start map[string]any
		line  func(i int) string
		reply func(i int) string
	}{
		{"python3", map[string]any{"argv": []string{"python3", "-q"}},
			func(i int) string { return fmt.Sprintf("print(%d*7)", i) },
			func(i int) string { return fmt.Sprintf("%d\n>>> ", i*7) }},
		{"bash", map[string]any{"argv": []string{"bash", "--norc", "--noprofile"}, "env": map[string]string{"PS1": "$ "}},
			func(i int) string { return fmt.Sprintf("echo a%d; echo b%d", i, i) },
			func(i int) string { return fmt.Sprintf("a%d\nb%d\n$ ", i, i) }},
		{"sh", map[string]any{"argv": []string{"sh"}, "env": map[string]string{"PS1": "$ "}},
			func(i int) string { return fmt.Sprintf("echo a%d; echo b%d", i, i) },
			func(i int) string { return fmt.Sprintf("a%d\nb%d\n$ ", i, i) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, session.Config{})
			st := c.start(tc.start)
			defer c.stop(st.SessionID)
			if st.Reason != "awaiting_input" {
				t.Fatalf("start: %q reason=%s", st.Output, st.Reason)
			}
			for i := range 100 {
				r := c.send(st.SessionID, map[string]any{"text": tc.line(i), "enter": true, "timeout_ms": 20000})
				if want := tc.reply(i); r.Output != want || r.Reason != "awaiting_input" {
					t.Fatalf("round %d: %q reason=%s (%s), want %q awaiting_input", i, r.Output, r.Reason, r.StateDetail, want)
				}
			}
		})
	}
}
