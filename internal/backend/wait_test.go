//go:build linux

package backend

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/outlog"
)

// gatedSink holds its first call until release is closed, like a sink
// that falls behind, and counts what it was given.
type gatedSink struct {
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	got     strings.Builder // guarded by mu
}

func (g *gatedSink) sink(_ outlog.Stream, p []byte) {
	g.once.Do(func() { <-g.release })
	g.mu.Lock()
	g.got.Write(p)
	g.mu.Unlock()
}

func (g *gatedSink) text() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.got.String()
}

// awaitExit blocks until pid has exited (reaped or not), on its pidfd,
// which turns readable at the exit; false after d.
func awaitExit(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true // already reaped
	}
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(d/time.Millisecond))
		if !errors.Is(err, unix.EINTR) {
			return err == nil && n == 1
		}
	}
}

// Wait returns only once everything the program wrote is in the sink,
// however far behind the pump is when the program exits: the session
// reports "exited" on Wait, and an agent trusting it must have it all.
func TestProcess_WaitAfterAllOutput(t *testing.T) {
	// Small enough for any kernel's pipe and terminal buffers, so the
	// program exits while the sink still holds the first chunk.
	const n = 3000
	want := strings.Repeat("x", n)
	for _, start := range []func(Spec, func(func()), Sink) (Process, error){StartPipe, StartPTY} {
		g := &gatedSink{release: make(chan struct{})}
		p, err := start(spec(`head -c 3000 /dev/zero | tr '\0' x`), direct, g.sink)
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			ex  Exit
			err error
			got int // bytes in the sink when Wait returned
		}
		waited := make(chan result, 1)
		go func() {
			ex, err := p.Wait()
			waited <- result{ex, err, len(g.text())}
		}()
		// The program exits while its output waits behind the sink.
		if !awaitExit(p.PID(), 10*time.Second) {
			t.Fatalf("%s: the program did not exit", p.Kind())
		}
		close(g.release)
		var r result
		select {
		case r = <-waited:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Wait did not return once the sink caught up", p.Kind())
		}
		if r.err != nil || r.ex != (Exit{}) {
			t.Fatalf("%s: Wait = %+v, %v", p.Kind(), r.ex, r.err)
		}
		if r.got != n {
			t.Errorf("%s: Wait returned with %d of %d bytes in the sink", p.Kind(), r.got, n)
		}
		if got := g.text(); got != want {
			t.Errorf("%s: sink got %d bytes, want %d", p.Kind(), len(got), n)
		}
		p.Close()
	}
}

// A descendant that keeps writing after the program exited cannot hold
// Wait: it collects what the kernel held at the exit, not the stream.
func TestProcess_WaitWithWritingDescendant(t *testing.T) {
	for _, start := range []func(Spec, func(func()), Sink) (Process, error){StartPipe, StartPTY} {
		var c collector
		p, err := start(spec(`yes & exit 5`), direct, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		waited := make(chan Exit, 1)
		go func() {
			ex, _ := p.Wait()
			waited <- ex
		}()
		select {
		case ex := <-waited:
			if ex != (Exit{Code: 5}) {
				t.Errorf("%s: Wait = %+v, want exit 5", p.Kind(), ex)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: Wait held up by a descendant still writing", p.Kind())
		}
		_ = unix.Kill(-p.PID(), unix.SIGKILL) // yes is in the program's process group
		p.Close()
	}
}
