package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// Documented in docs/transcripts.md ("Durability"): the store lags what
// agentty received by at most lagBytesBound bytes, and a byte received is
// committed within lagTimeBound.
const (
	lagBytesBound = 8 << 20
	lagTimeBound  = time.Second
)

// seqSum is the size and SHA-256 of `seq 1 n`'s output, from seq itself
// (a Go loop formatting 15 million numbers takes seconds under -race).
func seqSum(t *testing.T, n int) (int64, string) {
	t.Helper()
	cmd := exec.Command("seq", "1", strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	size, err := io.Copy(h, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return size, fmt.Sprintf("%x", h.Sum(nil))
}

// lagSampler tracks how far the durable offset trails the appended end,
// in bytes and in time: the time lag is how long ago the oldest byte not
// yet committed was first seen appended.
type lagSampler struct {
	seen     []lagSample // (time, end) as sampled, end growing
	first    int         // seen[first] is the first sample whose end passed durable
	maxBytes int64
	maxTime  time.Duration
}

type lagSample struct {
	t   time.Time
	end int64
}

// sample reads end before durable: durable only grows, so the lag is
// never overstated by the order of the two loads.
func (s *lagSampler) sample(l *Log) {
	now := time.Now()
	end := l.end.Load()
	durable := l.durable.Load()
	s.seen = append(s.seen, lagSample{now, end})
	s.maxBytes = max(s.maxBytes, end-durable)
	for s.first < len(s.seen) && s.seen[s.first].end <= durable {
		s.first++
	}
	if s.first < len(s.seen) {
		s.maxTime = max(s.maxTime, now.Sub(s.seen[s.first].t))
	}
}

// TestLog_LagBounded streams `seq` (124 MB) through a pipe into a store
// log the way the pipe pump does (64 KiB reads, one Append each) while
// sampling the durable offset: the store must never trail by more than the
// documented bound, and the transcript must be exact.
func TestLog_LagBounded(t *testing.T) {
	const count = 15_000_000
	wantSize, wantSum := seqSum(t, count)
	dir := t.TempDir()
	s := openTest(t, dir, nil) // the defaults are what is documented
	l := startSession(s, "s1", 4<<20)

	cmd := exec.Command("seq", "1", strconv.Itoa(count))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pumped := make(chan error, 1)
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := out.Read(buf)
			if n > 0 {
				l.Append(outlog.Stdout, buf[:n])
			}
			if errors.Is(err, io.EOF) {
				pumped <- cmd.Wait()
				return
			}
			if err != nil {
				pumped <- err
				return
			}
		}
	}()
	var lag lagSampler
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	start := time.Now()
sampling:
	for {
		select {
		case err := <-pumped:
			if err != nil {
				t.Fatal(err)
			}
			break sampling
		case <-tick.C:
			lag.sample(l)
		}
	}
	elapsed := time.Since(start)
	l.CloseWrite()
	if !s.Sync(30 * time.Second) {
		t.Fatal("sync timed out")
	}
	if d, e := l.durable.Load(), l.end.Load(); d != e {
		t.Fatalf("after Sync %d of %d bytes are committed", d, e)
	}
	t.Logf("%d bytes in %v (%.0f MB/s); max lag %d bytes (%.1f MiB), %v; %d samples",
		wantSize, elapsed, float64(wantSize)/elapsed.Seconds()/1e6, lag.maxBytes, float64(lag.maxBytes)/(1<<20), lag.maxTime, len(lag.seen))
	if lag.maxBytes > lagBytesBound {
		t.Errorf("the store trailed the output by %d bytes, over the documented %d", lag.maxBytes, lagBytesBound)
	}
	if lag.maxTime > lagTimeBound {
		t.Errorf("a byte waited %v to be committed, over the documented %v", lag.maxTime, lagTimeBound)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openTest(t, dir, nil)
	past, err := s2.OpenLog("s1")
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	var size, lost int64
	for at := int64(0); ; {
		sl := past.Read(at, -1, 1<<20, outlog.Both)
		h.Write(sl.Data)
		size += int64(len(sl.Data))
		lost += sl.LostBytes
		if sl.Next == at {
			break
		}
		at = sl.Next
	}
	if got := fmt.Sprintf("%x", h.Sum(nil)); size != wantSize || lost != 0 || got != wantSum {
		t.Fatalf("stored %d bytes (lost %d, sha256 %s), want %d bytes of seq 1 %d", size, lost, got, wantSize, count)
	}
}
