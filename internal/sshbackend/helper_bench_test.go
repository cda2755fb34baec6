//go:build unix

package sshbackend

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkHelperScript_Probe is the remote helper's share of one probe
// (the helper runs locally, so no network): a python3 REPL on a PTY,
// blocked in pselect6 on its terminal. After the first probe its fd set
// comes from the helper's cache (the REPL does not run between probes); a
// probe of a fresh wait costs one dd and od more.
func BenchmarkHelperScript_Probe(b *testing.B) {
	h := startLocalHelper(b)
	cmd := startInPTY(b, "python3", "-q")
	req := "P " + strconv.Itoa(cmd.Process.Pid)
	h.probeUntil(b, cmd.Process.Pid, "awaiting_input")
	b.ResetTimer()
	for range b.N {
		if ans := h.ask(b, req); !strings.HasPrefix(ans, "g ") {
			b.Fatalf("answer %q", ans)
		}
	}
}
