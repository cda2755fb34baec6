package mcpserver

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"

	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/session"
)

// BenchmarkREPLRoundTrip_Gate is BenchmarkREPLRoundTrip through the policy
// gate: with only the protected directories (the default), and with an
// allowlist and the audit log (fsync off, so the disk is not measured).
// Input to python3 is not a command line, but deciding that costs a look at
// the session's processes.
func BenchmarkREPLRoundTrip_Gate(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed")
	}
	for _, bc := range []struct {
		name  string
		rules policy.Rules
	}{{"protected-only", policy.Rules{}}, {"allowlist+audit", allowGitLsPython}} {
		b.Run(bc.name, func(b *testing.B) {
			g := newGatedTB(b, bc.rules, session.Config{}, Options{}, nil)
			var st StartResult
			g.call("start_process", map[string]any{"argv": []string{"python3", "-q"}}, &st)
			i := 0
			for b.Loop() {
				i++
				var r SendResult
				g.call("send_input", map[string]any{"session_id": st.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &r)
				if want := strconv.Itoa(i*7) + "\n>>> "; r.Output != want {
					b.Fatalf("reply %d: %q", i, r.Output)
				}
			}
		})
	}
}
