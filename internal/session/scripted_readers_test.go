package session

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend/backendtest"
	"github.com/agentty/agentty/internal/record"
)

// readNow reads through c without waiting.
func readNow(t *testing.T, s *Session, c Cursor) Output {
	t.Helper()
	r, err := s.Read(context.Background(), c, WaitOptions{}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Output
}

// TestScripted_ReaderCursors: every reader has its own cursor; explicit
// cursors leave it alone.
func TestScripted_ReaderCursors(t *testing.T) {
	sm := scripted(t, Config{}, backendtest.Options{})
	s, p := sm.start(t, record.ModePipe)
	p.Print("one\n")
	late := s.RegisterReader(false)
	early := s.RegisterReader(true)
	p.Print("two\n")

	steps := []struct {
		name       string
		c          Cursor
		text       string
		from, next int64
	}{
		{"default reader reads everything", Cursor{}, "one\ntwo\n", 0, 8},
		{"default reader has nothing new", Cursor{}, "", 8, 8},
		{"explicit cursor leaves the reader alone", Cursor{Reader: late, At: ptr(int64(0))}, "one\ntwo\n", 0, 8},
		{"a reader registered at the end", Cursor{Reader: late}, "two\n", 4, 8},
		{"a reader registered from the start", Cursor{Reader: early}, "one\ntwo\n", 0, 8},
		{"since_line", Cursor{Reader: early, SinceLine: ptr(int64(1))}, "two\n", 4, 8},
	}
	for _, st := range steps {
		out := readNow(t, s, st.c)
		if out.Text != st.text || out.From != st.from || out.Next != st.next {
			t.Fatalf("%s: read %q from %d next %d, want %q from %d next %d", st.name, out.Text, out.From, out.Next, st.text, st.from, st.next)
		}
	}
	p.Print("three\n")
	want := []record.ReaderInfo{{ID: DefaultReader, Cursor: 8, Pending: 6}, {ID: late, Cursor: 8, Pending: 6}, {ID: early, Cursor: 8, Pending: 6}}
	if got := s.Readers(); !slices.Equal(got, want) {
		t.Fatalf("readers %+v, want %+v", got, want)
	}
	if err := s.UnregisterReader(late); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(context.Background(), Cursor{Reader: late}, WaitOptions{}, ReadOptions{}); !errors.Is(err, ErrReaderNotFound) {
		t.Fatalf("read through an unregistered reader: %v", err)
	}
	if err := s.UnregisterReader(DefaultReader); !errors.Is(err, ErrBadArgs) {
		t.Fatalf("unregister the default reader: %v", err)
	}
}

// TestScripted_OutputEviction: past the output limit the oldest output is
// dropped, and a cursor behind it learns exactly how much it lost.
func TestScripted_OutputEviction(t *testing.T) {
	const limit = 64 << 10 // one block of the in-memory log
	sm := scripted(t, Config{OutputLimit: limit}, backendtest.Options{})
	s, p := sm.start(t, record.ModePipe)
	line := strings.Repeat("x", 1023) + "\n"
	for range 200 {
		p.Print(line)
	}
	// 200 KiB in 64 KiB blocks: the three full blocks go, the last 8 KiB stay.
	const evicted, kept = 3 * limit, 200<<10 - 3*limit
	if in := s.Info(); in.Evicted != evicted || in.Retained != kept || in.Bytes != 200<<10 || in.Lines != 200 {
		t.Fatalf("info evicted %d retained %d bytes %d lines %d; want %d, %d, %d, 200", in.Evicted, in.Retained, in.Bytes, in.Lines, evicted, kept, 200<<10)
	}
	fresh := s.RegisterReader(true)
	for _, c := range []Cursor{{}, {Reader: fresh}} {
		out := readNow(t, s, c)
		if out.LostBytes != evicted || out.LostLines != evicted/1024 || out.From != evicted || out.Text != strings.Repeat(line, kept/1024) || out.Next != 200<<10 {
			t.Fatalf("reader %d: lost %d bytes %d lines, from %d next %d, %d bytes of text; want %d, %d, %d, %d, %d",
				c.Reader, out.LostBytes, out.LostLines, out.From, out.Next, len(out.Text), evicted, evicted/1024, evicted, 200<<10, kept)
		}
	}
}

// logEvents hands every log message to a channel (dropping them when
// nobody reads), so a test can wait for what the manager did.
type logEvents chan string

func (c logEvents) Enabled(context.Context, slog.Level) bool { return true }
func (c logEvents) Handle(_ context.Context, r slog.Record) error {
	select {
	case c <- r.Message:
	default:
	}
	return nil
}
func (c logEvents) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c logEvents) WithGroup(string) slog.Handler      { return c }

// TestScripted_ExitedSessionsExpire: an exited session is removed after
// ExitedTTL, its tree swept and its process released.
func TestScripted_ExitedSessionsExpire(t *testing.T) {
	events := make(logEvents, 64)
	sm := scripted(t, Config{ExitedTTL: 20 * time.Millisecond, Logger: slog.New(events)}, backendtest.Options{})
	s, p := sm.start(t, record.ModePipe)
	p.Print("done\n")
	p.End(0)
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for deleted := false; !deleted; {
		select {
		case msg := <-events:
			deleted = msg == "session deleted"
		case <-deadline.C:
			t.Fatal("exited session not removed after its TTL")
		}
	}
	if _, err := sm.Get(s.ID); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("expired session: %v", err)
	}
	if got := p.Terminations(); !slices.Equal(got, []time.Duration{0}) || !p.Closed() {
		t.Fatalf("terminations %v, closed %v; want [0] and closed", got, p.Closed())
	}
}
