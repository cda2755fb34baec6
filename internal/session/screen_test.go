package session

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Every goroutine a PTY session's screen starts (feeder, answer drain,
// answer writer) ends when the Manager closes, whether the session exited
// on its own, was deleted, or was still running.
func TestScreen_GoroutinesEndWithManager(t *testing.T) {
	before := runtime.NumGoroutine()
	m := NewManager(Config{})
	exited, err := m.Start(StartOptions{Command: `printf 'done\r\n'`})
	if err != nil {
		t.Fatal(err)
	}
	deleted, err := m.Start(StartOptions{Command: `printf '\033[6n'; exit 0`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(StartOptions{Argv: []string{"cat"}}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Session{exited, deleted} {
		select {
		case <-s.Done():
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not exit", s.ID)
		}
	}
	r, err := exited.Screen(context.Background(), ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Snapshot.Lines[:2], "|"); got != "done|" || r.Wait.Reason != ReasonNoWait {
		t.Fatalf("exited session's screen %q reason %s", got, r.Wait.Reason)
	}
	if err := m.Delete(deleted.ID); err != nil {
		t.Fatal(err)
	}
	m.Close()
	// Close has waited for every goroutine's Done; the last of them may
	// still be returning, so yield until they are gone (bounded).
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before the manager, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// A resize takes effect where it happened in the output, even when no
// output follows it.
func TestScreen_ResizeWithoutOutput(t *testing.T) {
	m := NewManager(Config{})
	defer m.Close()
	s, err := m.Start(StartOptions{Argv: []string{"cat"}, Rows: 10, Cols: 20})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Resize(5, 30); err != nil {
		t.Fatal(err)
	}
	r, err := s.Screen(context.Background(), ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Snapshot.Rows != 5 || r.Snapshot.Cols != 30 || r.Pending != 0 {
		t.Fatalf("screen %dx%d pending %d after resize to 30x5", r.Snapshot.Cols, r.Snapshot.Rows, r.Pending)
	}
}
