package session

import (
	"context"
	"maps"
	"regexp"
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

// sessionGoroutines counts the goroutines whose stacks run in a session's
// pump, screen feeder, exit wait or emulator answer drain, after yielding
// until want holds (bounded: a goroutine that has done its work may still
// be returning). Other tests' leftovers do not count.
func sessionGoroutines(want map[string]int) map[string]int {
	funcs := map[string]string{
		"pump":   "backend.(*pump).run",
		"feeder": "session.(*Session).feedScreen",
		"exit":   "session.(*Session).exitLoop",
		"drain":  "screen.(*Screen).drain",
	}
	var got map[string]int
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); ; {
		n := runtime.Stack(buf, true)
		for n == len(buf) {
			buf = make([]byte, 2*len(buf))
			n = runtime.Stack(buf, true)
		}
		got = map[string]int{}
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			for k, f := range funcs {
				if strings.Contains(g, f+"(") {
					got[k]++
				}
			}
		}
		if maps.Equal(got, want) || time.Now().After(deadline) {
			return got
		}
		runtime.Gosched()
	}
}

// An idle PTY session holds one goroutine, its pump: the screen's feeder
// runs only while there is output to render, and the wait for the exit is
// shared (backend's exit watcher). Fed again and again, the screen shows
// every line; after, the session holds its pump and, its screen now built
// by the reads, the emulator's answer drain.
func TestScreen_IdleSessionHoldsOneGoroutine(t *testing.T) {
	const n = 10
	m := NewManager(Config{MaxSessions: n + 2})
	defer m.Close()
	sessions := startIdleCats(t, m, n)
	want := map[string]int{"pump": n}
	if got := sessionGoroutines(want); !maps.Equal(got, want) {
		t.Fatalf("%d idle PTY sessions run %v, want %v", n, got, want)
	}
	s := sessions[0]
	for i := range 50 {
		line := "line " + strings.Repeat("x", i%7) + string(rune('a'+i%26))
		if _, err := s.Send(Input{Text: line, Enter: true}, time.Now().Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		twice := regexp.MustCompile(regexp.QuoteMeta(line + "\n" + line))
		r, err := s.Screen(context.Background(), ScreenOptions{Wait: WaitOptions{Until: twice, Timeout: 10 * time.Second, IgnoreInput: true}})
		if err != nil {
			t.Fatal(err)
		}
		// cat's terminal echoes the line, and cat prints it again.
		if r.Wait.Reason != ReasonMatched || !strings.Contains(strings.Join(r.Snapshot.Lines, "\n"), line+"\n"+line) {
			t.Fatalf("round %d: screen lacks %q twice:\n%s", i, line, strings.Join(r.Snapshot.Lines, "\n"))
		}
	}
	if !s.scr.scr.Built() {
		t.Fatal("reading the screen did not build its emulator")
	}
	want = map[string]int{"pump": n, "drain": 1}
	if got := sessionGoroutines(want); !maps.Equal(got, want) {
		t.Fatalf("after feeding, the sessions run %v, want %v", got, want)
	}
}

// A session's screen can be resized and read from the moment the session
// is listed, while Start is still returning: the feeder is startable from
// then on.
func TestScreen_UsedWhileStarting(t *testing.T) {
	const n = 30
	m := NewManager(Config{MaxSessions: n + 2})
	defer m.Close()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, s := range m.List() {
				_ = s.Resize(20+len(s.ID)%5, 60)
			}
			runtime.Gosched()
		}
	}()
	sessions := startIdleCats(t, m, n)
	close(stop)
	<-done
	for _, s := range sessions {
		// The loop may have ended before it listed the last sessions.
		if err := s.Resize(20+len(s.ID)%5, 60); err != nil {
			t.Fatal(err)
		}
		r, err := s.Screen(context.Background(), ScreenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := 20 + len(s.ID)%5; r.Snapshot.Rows != want || r.Snapshot.Cols != 60 {
			t.Errorf("%s: screen %dx%d, want 60x%d", s.ID, r.Snapshot.Cols, r.Snapshot.Rows, want)
		}
	}
}
