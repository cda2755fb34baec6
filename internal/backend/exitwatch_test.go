//go:build linux

package backend

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// openFds counts this process's open pidfds and epoll sets, what the
// watcher opens: not every descriptor, since the rest of the process (the
// runtime, a file an earlier test left to its cleanup) opens and closes
// others on its own time.
func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		switch l, _ := os.Readlink("/proc/self/fd/" + e.Name()); l {
		case "anon_inode:[pidfd]", "anon_inode:[eventpoll]":
			n++
		}
	}
	return n
}

// watcherIdle waits until the watcher has ended: its goroutine returned
// and its epoll set is closed.
func watcherIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		exits.mu.Lock()
		idle := exits.epfd < 0 && len(exits.watched) == 0
		exits.mu.Unlock()
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the exit watcher still runs with nothing to watch")
		}
		time.Sleep(time.Millisecond) // the goroutine ends right after the last callback; no event says when
	}
}

// One watcher reports every exit once, whatever the order, from programs
// on a PTY and on pipes; Wait after the report gives each exit code; the
// watcher ends with the last exit and leaves no descriptor behind.
func TestExitWatch_EveryExitOnce(t *testing.T) {
	watcherIdle(t)
	fds := openFds(t)
	const n = 12
	type run struct {
		p     Process
		fired chan struct{}
		calls int
	}
	var mu sync.Mutex
	runs := make([]*run, n)
	for i := range n {
		start := StartPipe
		if i%2 == 0 {
			start = StartPTY
		}
		// The later ones exit first; the first exits at once.
		p, err := start(spec(fmt.Sprintf("sleep 0.%02d; exit %d", (n-i)%n*2, i+1)), direct, func(outlog.Stream, []byte) {})
		if err != nil {
			t.Fatal(err)
		}
		r := &run{p: p, fired: make(chan struct{})}
		runs[i] = r
		if err := p.OnExit(func() {
			mu.Lock()
			r.calls++
			mu.Unlock()
			close(r.fired) // a second call would panic
		}); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range runs {
		select {
		case <-r.fired:
		case <-time.After(20 * time.Second):
			t.Fatalf("process %d: no exit reported", i)
		}
		ex, err := r.p.Wait()
		if err != nil || ex != (Exit{Code: i + 1}) {
			t.Errorf("process %d: Wait = %+v, %v; want exit %d", i, ex, err, i+1)
		}
		r.p.Close()
	}
	watcherIdle(t)
	mu.Lock()
	for i, r := range runs {
		if r.calls != 1 {
			t.Errorf("process %d: reported %d times", i, r.calls)
		}
	}
	mu.Unlock()
	// More than before is a leak. Fewer is an earlier test's process
	// handle (os.Process holds a pidfd) closed meanwhile by its finalizer.
	if got := openFds(t); got > fds {
		t.Errorf("%d pidfds and epoll sets open after, %d before", got, fds)
	}
}

// A watch that begins as the watcher ends (its last process just exited)
// is never lost: it starts a new watcher or joins the old one in time.
func TestExitWatch_WatchAsTheWatcherEnds(t *testing.T) {
	for round := range 50 {
		a, err := StartPipe(spec("exit 0"), direct, func(outlog.Stream, []byte) {})
		if err != nil {
			t.Fatal(err)
		}
		b, err := StartPipe(spec("exit 3"), direct, func(outlog.Stream, []byte) {})
		if err != nil {
			t.Fatal(err)
		}
		fired := make(chan struct{})
		if err := a.OnExit(func() {
			// On the watcher's goroutine, as its set empties.
			go func() {
				if err := b.OnExit(func() { close(fired) }); err != nil {
					t.Error(err)
					close(fired)
				}
			}()
		}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-fired:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the second exit was never reported", round)
		}
		if ex, err := b.Wait(); err != nil || ex.Code != 3 {
			t.Fatalf("round %d: Wait = %+v, %v", round, ex, err)
		}
		_, _ = a.Wait()
		a.Close()
		b.Close()
	}
	watcherIdle(t)
}

// A program that exited before the watch began is reported at once.
func TestExitWatch_AlreadyExited(t *testing.T) {
	p, err := StartPipe(spec("exit 9"), direct, func(outlog.Stream, []byte) {})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !awaitExit(p.PID(), 10*time.Second) {
		t.Fatal("the program did not exit")
	}
	fired := make(chan struct{})
	if err := p.OnExit(func() { close(fired) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("an exit from before the watch was not reported")
	}
	if ex, err := p.Wait(); err != nil || ex.Code != 9 {
		t.Errorf("Wait = %+v, %v; want exit 9", ex, err)
	}
	watcherIdle(t)
}
