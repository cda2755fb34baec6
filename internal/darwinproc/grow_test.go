package darwinproc

import (
	"errors"
	"testing"
)

func TestGrow_Listings(t *testing.T) {
	// kernel answers a listing of have entries of 8 bytes into buf, as
	// proc_pidinfo does: as many as fit, the byte count returned.
	kernel := func(have int, calls *int) func([]byte) (int, error) {
		return func(buf []byte) (int, error) {
			*calls++
			n := min(have*8, len(buf))
			for i := range n {
				buf[i] = byte(i/8 + 1)
			}
			return n, nil
		}
	}
	for _, c := range []struct {
		name      string
		have      int
		guess     int
		wantBytes int
		wantCalls int
	}{
		{"fits the guess", 3, 16, 24, 1},
		{"empty", 0, 16, 0, 1},
		{"exactly full asks again", 16, 16, 128, 2},
		{"grows past a low guess", 1000, 8, 8000, 4},
		{"bounded", 1 << 20, 16, maxList, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			b, err := grow(kernel(c.have, &calls), 8, c.guess)
			if err != nil || len(b) != c.wantBytes || calls != c.wantCalls {
				t.Fatalf("grow = %d bytes, %v after %d calls; want %d bytes after %d", len(b), err, calls, c.wantBytes, c.wantCalls)
			}
			if len(b) > 0 && b[len(b)-1] != byte((len(b)-1)/8+1) {
				t.Fatalf("last entry %d, want %d", b[len(b)-1], (len(b)-1)/8+1)
			}
		})
	}
	t.Run("partial entry cut", func(t *testing.T) {
		b, err := grow(func([]byte) (int, error) { return 13, nil }, 8, 16)
		if err != nil || len(b) != 8 {
			t.Fatalf("grow = %d bytes, %v; want 8", len(b), err)
		}
	})
	t.Run("error", func(t *testing.T) {
		if _, err := grow(func([]byte) (int, error) { return 0, ErrNoProcess }, 8, 16); !errors.Is(err, ErrNoProcess) {
			t.Fatalf("grow error = %v, want ErrNoProcess", err)
		}
	})
}
