package proctree

import (
	"syscall"
	"testing"
)

func TestSigInMask_Bits(t *testing.T) {
	for _, tc := range []struct {
		mask uint64
		sig  syscall.Signal
		want bool
	}{
		{0x4000, 15, true}, // SIGTERM ignored, as bash at its prompt
		{0x4000, 1, false},
		{0x1, 1, true},
		{0x3, 2, true},
		{1 << 63, 64, true},
		{^uint64(0), 0, false},
		{^uint64(0), 65, false},
	} {
		if got := sigInMask(tc.mask, tc.sig); got != tc.want {
			t.Errorf("sigInMask(%#x, %d) = %v, want %v", tc.mask, tc.sig, got, tc.want)
		}
	}
}
