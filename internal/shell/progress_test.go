package shell

import (
	"strings"
	"sync"
	"testing"
)

// Progress counts every output byte, keeps the newest non-blank clean
// line (escape sequences stripped, long lines cut at 200 bytes) and closes
// the channel a waiter holds at each output.
func TestProgress_TracksOutput(t *testing.T) {
	p := NewProgress()
	if p.OutputEnd() != 0 || p.LastLine() != "" {
		t.Fatalf("fresh: end %d, line %q", p.OutputEnd(), p.LastLine())
	}
	long := strings.Repeat("x", 300)
	steps := []struct {
		out      string
		wantEnd  int64
		wantLine string
	}{
		{"\x1b[1mbuilding\x1b[0m 1/3\r\n", 22, "building 1/3"},
		{"\r\n   \r\n", 29, "building 1/3"}, // blank output keeps the last line
		{"step 2\nstep 3", 42, "step 3"},
		{long + "\n", 343, long[:200] + "…"},
	}
	for _, s := range steps {
		ch := p.OutputChanged()
		p.OnOutput(0, []byte(s.out))
		select {
		case <-ch:
		default:
			t.Fatalf("after %q: the channel taken before the output is still open", s.out)
		}
		if got := p.OutputEnd(); got != s.wantEnd {
			t.Fatalf("after %q: end %d, want %d", s.out, got, s.wantEnd)
		}
		if got := p.LastLine(); got != s.wantLine {
			t.Fatalf("after %q: line %q, want %q", s.out, got, s.wantLine)
		}
		select {
		case <-p.OutputChanged():
			t.Fatalf("after %q: the new channel is already closed", s.out)
		default:
		}
	}
}

// Output arriving from the hook while waiters read is race-free, and the
// count is exact.
func TestProgress_ConcurrentReaders(t *testing.T) {
	p := NewProgress()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-p.OutputChanged():
					_ = p.LastLine()
					_ = p.OutputEnd()
				}
			}
		}()
	}
	for range 1000 {
		p.OnOutput(0, []byte("line\n"))
	}
	close(stop)
	wg.Wait()
	if got := p.OutputEnd(); got != 5000 {
		t.Fatalf("end %d, want 5000", got)
	}
}
