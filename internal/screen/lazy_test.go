package screen

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// memSource is a Source holding everything written, as the session's log
// does; gone drops the first bytes (an evicted start).
type memSource struct {
	mu   sync.Mutex
	data []byte
	gone int64
}

func (m *memSource) append(p []byte) {
	m.mu.Lock()
	m.data = append(m.data, p...)
	m.mu.Unlock()
}

func (m *memSource) ReadAt(off int64, max int) ([]byte, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var lost int64
	if off < m.gone {
		lost, off = m.gone-off, m.gone
	}
	if off >= int64(len(m.data)) {
		return nil, lost
	}
	end := min(int64(len(m.data)), off+int64(max))
	return append([]byte(nil), m.data[off:end]...), lost
}

// replies records what a Screen answered.
type replies struct {
	mu  sync.Mutex
	got []byte
}

func (r *replies) add(p []byte) {
	r.mu.Lock()
	r.got = append(r.got, p...)
	r.mu.Unlock()
}

func (r *replies) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.got)
}

// op is one step of a run: output, or a resize when rows > 0.
type op struct {
	data       string
	rows, cols int
}

// twin is an eager and a lazy Screen fed the same steps.
type twin struct {
	eager, lazy     *Screen
	src             *memSource
	eagerR, lazyR   *replies
	rows, cols      int
	forceBuildAfter int // the lazy screen is read after this many steps (-1: only at the end)
}

func newTwin(t *testing.T, rows, cols int) *twin {
	return newTwinOf(t, rows, cols, true)
}

// newTwinOf makes a twin whose lazy screen replays from a Source, or from
// its own copy.
func newTwinOf(t *testing.T, rows, cols int, withSource bool) *twin {
	t.Helper()
	tw := &twin{src: &memSource{}, eagerR: &replies{}, lazyR: &replies{}, rows: rows, cols: cols, forceBuildAfter: -1}
	tw.eager = newScreen(t, Options{Rows: rows, Cols: cols, Scrollback: 10, Reply: tw.eagerR.add})
	o := Options{Rows: rows, Cols: cols, Scrollback: 10, Reply: tw.lazyR.add, Lazy: true, Source: tw.src}
	if !withSource {
		o.Source = nil
	}
	tw.lazy = newScreen(t, o)
	return tw
}

// run feeds the steps to both, comparing what the tools read without
// the screen (TUI, cursor keys) after each, then closes both so every
// answer is delivered.
func (tw *twin) run(t *testing.T, ops []op) {
	t.Helper()
	for i, o := range ops {
		if o.rows > 0 {
			if err := tw.eager.Resize(o.rows, o.cols); err != nil {
				t.Fatal(err)
			}
			if err := tw.lazy.Resize(o.rows, o.cols); err != nil {
				t.Fatal(err)
			}
		} else {
			tw.eager.Write([]byte(o.data))
			tw.src.append([]byte(o.data))
			tw.lazy.Write([]byte(o.data))
		}
		if a, b := tw.eager.AltScreen(), tw.lazy.AltScreen(); a != b {
			t.Fatalf("after step %d: alternate screen %v, lazily %v", i, a, b)
		}
		if a, b := tw.eager.AppCursorKeys(), tw.lazy.AppCursorKeys(); a != b {
			t.Fatalf("after step %d: cursor keys mode %v, lazily %v", i, a, b)
		}
		if i == tw.forceBuildAfter {
			tw.compare(t)
		}
	}
	tw.eager.Close()
	tw.lazy.Close()
}

// compare checks that the two screens are the same as the tools report
// them: rows, styles, cursor, title, modes, scrollback, counts.
func (tw *twin) compare(t *testing.T) {
	t.Helper()
	a, b := tw.eager.StyledSnapshot(100), tw.lazy.StyledSnapshot(100)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("screens differ\n--- eager ---\n%s\n%+v\n--- lazy ---\n%s\n%+v", strings.Join(a.Lines, "|\n"), a, strings.Join(b.Lines, "|\n"), b)
	}
	if a, b := tw.eager.AppCursorKeys(), tw.lazy.AppCursorKeys(); a != b {
		t.Fatalf("cursor keys mode %v, lazily %v", a, b)
	}
	if got := tw.lazy.Lost(); got != 0 {
		t.Fatalf("lazy screen lost %d bytes", got)
	}
}

// chunked splits data into steps: whole, one byte each, or random sizes.
func chunked(data string, how string, rng *rand.Rand) []op {
	var ops []op
	switch how {
	case "whole":
		return []op{{data: data}}
	case "bytewise":
		for i := range len(data) {
			ops = append(ops, op{data: data[i : i+1]})
		}
	default:
		for p := data; len(p) > 0; {
			n := min(len(p), 1+rng.IntN(64))
			ops = append(ops, op{data: p[:n]})
			p = p[n:]
		}
	}
	return ops
}

// lazyCorpus is every screen test input: the tmux scripts, the xterm
// cases, and cases about queries, resizes and floods.
func lazyCorpus(t *testing.T) []script {
	var out []script
	out = append(out, loadScripts(t)...)
	for _, tc := range xtermCases {
		out = append(out, script{name: "xterm " + tc.name, rows: 5, cols: 20, data: tc.input})
	}
	flood := strings.Repeat("build step \x1b[32mok\x1b[0m 0123456789 abcdefghij\r\n", 400)
	out = append(out, []script{
		{"queries at the start", 5, 20, "\x1b[c\x1b[>c\x1b[5n\x1b[6n\x1b[?6n\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]12;?\x07"},
		{"CPR after text", 5, 20, "abc\x1b[6n\r\nde\x1b[6n\x1b[3;7H\x1b[6n"},
		{"CPR in a pending wrap", 5, 20, "xxxxxxxxxxxxxxxxxxxx\x1b[6nY\x1b[6n"},
		{"CPR after UTF-8 builds", 5, 20, "日本\x1b[6n"},
		{"CPR after a scroll", 3, 20, "1\r\n2\r\n3\r\n4\r\n5\x1b[6n"},
		{"mode report", 5, 20, "\x1b[?1h\x1b[?1$p\x1b[?2004$p\x1b[4$p"},
		{"colour set then query", 5, 20, "\x1b]10;#102030\x07\x1b]10;?\x07"},
		{"cursor keys on and off", 5, 20, "\x1b[?1h\x1b=prompt$ \x1b[?1l\x1b>"},
		{"in-band resize mode", 5, 20, "\x1b[?2048h"},
		{"bash prompt", 5, 40, "\x1b]0;user@host: ~\x07\x1b[?2004huser@host:~$ \x1b[?2004l\r\r\n"},
		{"flood", 24, 80, flood},
		{"flood then alternate screen", 24, 80, flood + "\x1b[?1049h\x1b[Hvim"},
		{"flood then CPR", 24, 80, flood + "\x1b[6n"},
	}...)
	// The light responder's cursor in and after a pending wrap, on the
	// last row too (where a wrap scrolls).
	for _, x := range []string{"", "\r", "\n", "\b", "\t", "\t\t", "\a", "\x1b[C", "\x1b[D", "\x1b[A", "\x1b[B", "\x1b[0C",
		"\x1b[K", "\x1b[1K", "\x1b[J", "\x1b[@", "\x1b[P", "\x1b[X", "\x1b[m", "\x1b[G", "\x1b[d", "\x1b[5G", "\x1b]0;t\x07"} {
		for _, at := range []string{"", "\x1b[5;1H"} {
			out = append(out, script{fmt.Sprintf("CPR after a pending wrap%q%q", at, x), 5, 20,
				at + strings.Repeat("x", 20) + x + "\x1b[6nY\x1b[6n"})
		}
	}
	return out
}

// TestScreen_LazyEqualsEager runs every case of the screen corpus on an
// eager Screen and on a lazy one fed the same bytes in the same writes,
// built at the end (after Close) or after a write in the middle, with and
// without a resize, replaying from a Source or from its own copy: the
// screens must be equal as the tools report them, and so must the answers
// the program gets and the modes read without a screen.
func TestScreen_LazyEqualsEager(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 100))
	light := 0 // runs where the lazy screen stayed light until read
	for _, sc := range lazyCorpus(t) {
		for _, how := range []string{"whole", "bytewise", "random"} {
			if how == "bytewise" && len(sc.data) > 4096 {
				continue
			}
			for _, variant := range []string{"read at the end", "read midway", "resized midway", "own copy, resized midway"} {
				t.Run(fmt.Sprintf("%s/%s/%s", sc.name, how, variant), func(t *testing.T) {
					tw := newTwinOf(t, sc.rows, sc.cols, !strings.HasPrefix(variant, "own copy"))
					ops := chunked(sc.data, how, rng)
					switch variant {
					case "read midway":
						tw.forceBuildAfter = len(ops) / 2
					case "resized midway", "own copy, resized midway":
						mid := len(ops) / 2
						rz := op{rows: sc.rows + 2, cols: max(1, sc.cols-3)}
						ops = append(ops[:mid:mid], append([]op{rz}, ops[mid:]...)...)
					}
					tw.run(t, ops)
					if !tw.lazy.Built() {
						light++
					}
					tw.compare(t)
					if a, b := tw.eagerR.String(), tw.lazyR.String(); a != b {
						t.Fatalf("answers %q, lazily %q", a, b)
					}
				})
			}
		}
	}
	if light == 0 {
		t.Fatal("no lazy screen stayed light until it was read: the test does not test laziness")
	}
}

// TestLight_AnswersAsTheEmulator feeds random output that asks for the
// cursor position among text, controls and cursor movement to an eager
// and a lazy Screen: the light responder must give the emulator's answers
// byte for byte while it knows the cursor, and build the emulator when it
// does not. Many runs must stay light, or the light tracker is not tested.
func TestLight_AnswersAsTheEmulator(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 110))
	var rows, cols int
	tokens := []func() string{
		// Up to a line and a bit: the last column's pending wrap is common.
		func() string { return strings.Repeat("x", rng.IntN(cols+2)) },
		func() string { return "\r" },
		func() string { return "\n" },
		func() string { return "\r\n" },
		func() string { return "\b" },
		func() string { return "\t" },
		func() string { return "\v\f\a" },
		func() string { return "\x0e\x0f" },
		func() string { return fmt.Sprintf("\x1b[%d;%dH", rng.IntN(9), rng.IntN(25)) },
		func() string { return fmt.Sprintf("\x1b[%d%c", rng.IntN(4), "ABCDGd"[rng.IntN(6)]) },
		func() string { return fmt.Sprintf("\x1b[%c", "ABCDGdH"[rng.IntN(7)]) },
		func() string { return fmt.Sprintf("\x1b[%d%c", rng.IntN(3), "KJ@PX"[rng.IntN(5)]) },
		func() string { return "\x1b[1;31m" },
		func() string { return "\x1b[m" },
		func() string { return "\x1b(0qq\x1b(B" },
		func() string { return "\x1b]0;title\x07" },
		func() string { return "\x1b[?25l\x1b[?2004h\x1b[?25h" },
		func() string { return "é" },
		func() string { return "\x1b7\x1b8" },
		func() string { return "\x1b[6n" },
		func() string { return "\x1b[?6n" },
	}
	// Text and the controls that move the cursor come up most.
	for range 3 {
		tokens = append(tokens, tokens[:6]...)
	}
	stayed, runs := 0, 2000
	for i := range runs {
		rows, cols = 1+rng.IntN(6), 1+rng.IntN(20)
		var b strings.Builder
		for range 1 + rng.IntN(40) {
			b.WriteString(tokens[rng.IntN(len(tokens))]())
		}
		b.WriteString("\x1b[6n")
		data := b.String()
		tw := newTwin(t, rows, cols)
		tw.run(t, chunked(data, "random", rng))
		if !tw.lazy.Built() {
			stayed++
		}
		if a, b := tw.eagerR.String(), tw.lazyR.String(); a != b {
			t.Fatalf("run %d at %dx%d, output %q:\nanswers %q\nlazily  %q", i, tw.cols, tw.rows, data, a, b)
		}
	}
	if stayed < runs/5 {
		t.Fatalf("only %d of %d runs stayed light", stayed, runs)
	}
	t.Logf("%d of %d runs answered every query light", stayed, runs)
}

// A lazy Screen builds its emulator before its output passes MaxReplay
// (the copy it keeps without a Source stays bounded), and the result is
// the eager one's.
func TestScreen_LazyMaxReplay(t *testing.T) {
	for _, withSource := range []bool{true, false} {
		t.Run(fmt.Sprintf("source=%v", withSource), func(t *testing.T) {
			tw := newTwinOf(t, 5, 20, withSource)
			tw.lazy.maxReplay = 100
			tw.run(t, []op{{data: strings.Repeat("line\r\n", 10)}, {data: "\x1b]2;t\x07" + strings.Repeat("more\r\n", 10)}})
			if !tw.lazy.Built() {
				t.Fatal("the output passed MaxReplay and the emulator was not built")
			}
			if n := len(tw.lazy.kept); n != 0 {
				t.Fatalf("the copy (%d bytes) is kept after the build", n)
			}
			tw.compare(t)
		})
	}
}

// Output the Source no longer holds is counted in Lost, and the screen is
// built from what it holds.
func TestScreen_LazyLostStart(t *testing.T) {
	src := &memSource{}
	s := newScreen(t, Options{Rows: 3, Cols: 20, Lazy: true, Source: src})
	data := "\x1b]2;gone\x07first\r\nsecond\r\nthird\r\nfourth"
	src.append([]byte(data))
	s.Write([]byte(data))
	src.gone = int64(strings.Index(data, "second"))
	sn := s.Snapshot(0)
	if s.Lost() != src.gone || sn.Title != "" || strings.Join(sn.Lines, "|") != "second|third|fourth" {
		t.Fatalf("lost %d (want %d), title %q, lines %q", s.Lost(), src.gone, sn.Title, sn.Lines)
	}
}
