package store

import (
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// TestStore_SyncWhileCommitting: readers calling Sync while the writer
// commits read the commit count under the lock (run with -race), and
// every Sync that returns true has everything queued before it committed.
func TestStore_SyncWhileCommitting(t *testing.T) {
	s := openTest(t, t.TempDir(), &Options{CommitInterval: time.Millisecond})
	l := startSession(s, "s1", 1<<20)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				end := l.Stats().End
				if !s.Sync(10*time.Second) || l.durable.Load() < end {
					t.Errorf("Sync returned with %d durable, want >= %d", l.durable.Load(), end)
					return
				}
			}
		})
	}
	for i := range 300 {
		l.Append(outlog.Stdout, lines(i, i+3))
		// Also let the readers find everything committed (Sync's fast path).
		s.Sync(10 * time.Second)
	}
	close(stop)
	wg.Wait()
}
