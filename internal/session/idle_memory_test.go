package session

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/screen"
)

// idleSessionBudget is issue 19's budget for an idle PTY session with its
// screen: 1,000 of them fit in 100 MiB.
const idleSessionBudget = 100 << 10

// liveBytes is the heap in use plus goroutine stacks, after collecting.
func liveBytes() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc + ms.StackInuse)
}

// startIdleCats starts n `cat` PTY sessions and waits until each is
// blocked reading its terminal, and returns them.
func startIdleCats(tb testing.TB, m *Manager, n int) []*Session {
	tb.Helper()
	out := make([]*Session, 0, n)
	for range n {
		s, err := m.Start(StartOptions{Argv: []string{"cat"}})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	for _, s := range out {
		r := s.Wait(context.Background(), 0, WaitOptions{Timeout: 30 * time.Second})
		if r.Reason != ReasonAwaiting {
			tb.Fatalf("%s: wait ended %s, want awaiting input", s.ID, r.Reason)
		}
	}
	return out
}

// An idle PTY session, its screen included, costs at most the budget in
// heap and goroutine stacks; its emulator is built only when the screen is
// read (and then costs what it costs).
func TestScreen_IdlePTYSessionMemory(t *testing.T) {
	const n = 40
	m := NewManager(Config{MaxSessions: n + 2})
	defer m.Close()
	// One session started, read and waited on first, so what the first of
	// anything allocates once (tables, pools) is not counted per session.
	warm := startIdleCats(t, m, 1)[0]
	if _, err := warm.Screen(context.Background(), ScreenOptions{}); err != nil {
		t.Fatal(err)
	}
	before := liveBytes()
	sessions := startIdleCats(t, m, n)
	per := (liveBytes() - before) / n
	t.Logf("%d idle cat PTY sessions: %d bytes each (heap and stacks)", n, per)
	if per > idleSessionBudget {
		t.Fatalf("an idle PTY session costs %d KiB, budget %d KiB", per>>10, idleSessionBudget>>10)
	}
	for _, s := range sessions {
		if s.scr == nil || s.scr.scr.Built() {
			t.Fatalf("%s: the screen's emulator exists before anyone read the screen", s.ID)
		}
	}
	r, err := sessions[0].Screen(context.Background(), ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sessions[0].scr.scr.Built() || r.Snapshot.Rows == 0 {
		t.Fatalf("reading the screen did not build it: %+v", r.Snapshot)
	}
}

// BenchmarkIdlePTYSession reports what one idle `cat` PTY session costs:
// heap and goroutine stacks after a collection, per session.
func BenchmarkIdlePTYSession(b *testing.B) {
	m := NewManager(Config{MaxSessions: b.N + 2})
	defer m.Close()
	startIdleCats(b, m, 1)
	before := liveBytes()
	b.ResetTimer()
	startIdleCats(b, m, b.N)
	b.StopTimer()
	b.ReportMetric(float64(liveBytes()-before)/float64(b.N), "B/session")
}

// A program that asks the terminal where the cursor is gets the answer
// from the light responder before any screen exists; a resize before the
// emulator exists is replayed where it happened in the output; switching
// to the alternate screen builds the emulator (TUI) with nobody reading.
// The screen read at the end is what an eager screen fed the same output
// with the resize at the same offset shows.
func TestScreen_LazyAnswersResizesAndBuilds(t *testing.T) {
	m := NewManager(Config{})
	defer m.Close()
	long := strings.Repeat("L", 35)
	script := `stty -icanon -echo; printf '` + long + `\r\nab\033[6n'; IFS= read -rd R a; printf '\r\ngot %s\r\n' "${a#?}"; ` +
		`read -r x; printf 'wide row at 30 columns 123456789'; read -r x; printf '\033[?1049h\033[Hfull'; read -r x; ` +
		`printf '\033[?1049l'; read -r x`
	s, err := m.Start(StartOptions{Argv: []string{"bash", "--norc", "-c", script}, Rows: 5, Cols: 40})
	if err != nil {
		t.Fatal(err)
	}
	r := read(t, s, Cursor{}, WaitOptions{Timeout: 20 * time.Second, Until: regexp.MustCompile(`got \S+`)})
	if r.Wait.Reason != ReasonMatched || r.Wait.Match != "got [2;3" {
		t.Fatalf("the program's cursor position report: %s %q, want got [2;3", r.Wait.Reason, r.Wait.Match)
	}
	if s.scr.scr.Built() || s.TUI() {
		t.Fatal("the emulator was built for a question the light responder answers")
	}
	resizedAt := s.log.Stats().End // the program waits for input: nothing more comes
	if err := s.Resize(5, 30); err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct {
		until string
		tui   bool
	}{{"123456789", false}, {"full", true}, {"", false}} {
		if _, err := s.Send(Input{Text: "x", Enter: true}, time.Now().Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		w := WaitOptions{Timeout: 20 * time.Second}
		if step.until != "" {
			w.Until = regexp.MustCompile(step.until)
		}
		r = read(t, s, Cursor{}, w)
		if r.Wait.Reason != ReasonMatched && r.Wait.Reason != ReasonAwaiting {
			t.Fatalf("step %d: %s, want %q", i, r.Wait.Reason, step.until)
		}
		// The feeder follows the log on its own: let it render what the
		// read saw (without reading the screen, which would build it).
		if behind := s.scr.syncTo(context.Background(), s.log.Stats().End, time.Now().Add(10*time.Second)); behind != 0 {
			t.Fatalf("step %d: the feeder is %d bytes behind", i, behind)
		}
		if built := s.scr.scr.Built(); built != (i > 0) || s.TUI() != step.tui {
			t.Fatalf("step %d: emulator built %v, TUI %v", i, built, s.TUI())
		}
	}
	sr, err := s.Screen(context.Background(), ScreenOptions{Scrollback: 10})
	if err != nil {
		t.Fatal(err)
	}
	all := s.log.Read(0, -1, 0, outlog.Stdout).Data
	eager, err := screen.New(screen.Options{Rows: 5, Cols: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer eager.Close()
	eager.Write(all[:resizedAt])
	if err := eager.Resize(5, 30); err != nil {
		t.Fatal(err)
	}
	eager.Write(all[resizedAt:])
	want, got := eager.Snapshot(10), sr.Snapshot
	if !slices.Equal(got.Lines, want.Lines) || got.Cursor != want.Cursor || got.AltScreen || got.Cols != 30 ||
		!slices.Equal(got.Scrollback, want.Scrollback) || sr.Lost != 0 || !slices.Contains(got.Lines, "wide row at 30 columns 1234567") {
		t.Fatalf("screen %q %+v scrollback %q lost %d\nwant %q %+v scrollback %q", got.Lines, got.Cursor, got.Scrollback, sr.Lost,
			want.Lines, want.Cursor, want.Scrollback)
	}
}

// TestScreen_AnswerNeverEndsAWaitEarly: a program that asks the terminal
// where its cursor is and reads the answer a byte at a time is not waiting
// for the agent until it has read all of it and asks for a line. Each of
// 50 rounds waits for the verdict after the typed line; the program must
// have printed what follows the answer by then.
func TestScreen_AnswerNeverEndsAWaitEarly(t *testing.T) {
	m := NewManager(Config{})
	defer m.Close()
	const rounds = 50
	script := `stty -icanon -echo; i=0; while [ $i -lt ` + strconv.Itoa(rounds) + ` ]; do i=$((i+1)); ` +
		`printf 'q%d\033[6n' $i; IFS= read -rd R a; printf ' got%d %s\r\n' $i "${a#?}"; read -r x; done`
	s, err := m.Start(StartOptions{Argv: []string{"bash", "--norc", "-c", script}, Rows: 5, Cols: 40})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= rounds; i++ {
		var w WaitOptions
		if i > 1 {
			if _, err := s.Send(Input{Text: "x", Enter: true}, time.Now().Add(5*time.Second)); err != nil {
				t.Fatal(err)
			}
			mark := s.LastInput()
			w.Input = &mark
		}
		w.Timeout = 20 * time.Second
		r := read(t, s, Cursor{}, w)
		want := fmt.Sprintf("q%d got%d [", i, i)
		if r.Wait.Reason != ReasonAwaiting || !strings.Contains(r.Output.Text, want) {
			t.Fatalf("round %d: %s with %q, want %s after %q", i, r.Wait.Reason, r.Output.Text, ReasonAwaiting, want)
		}
	}
}
