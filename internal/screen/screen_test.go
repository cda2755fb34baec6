package screen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func newScreen(t *testing.T, o Options) *Screen {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestScreen_Renders(t *testing.T) {
	cases := []struct {
		name   string
		input  string
		lines  []string
		cursor Cursor
		alt    bool
		title  string
	}{
		{"plain lines", "hello\r\nworld", []string{"hello", "world"}, Cursor{1, 5, true}, false, ""},
		{"carriage return progress", "10%\r50%\r100%\r\n", []string{"100%"}, Cursor{1, 0, true}, false, ""},
		{"colors stripped", "\x1b[1;31mred\x1b[0m plain", []string{"red plain"}, Cursor{0, 9, true}, false, ""},
		{"cursor addressing", "\x1b[3;5Hx\x1b[1;1Hy", []string{"y", "", "    x"}, Cursor{0, 1, true}, false, ""},
		{"wide characters", "日本語 ok", []string{"日本語 ok"}, Cursor{0, 9, true}, false, ""},
		{"alternate screen", "main\x1b[?1049h\x1b[Hfull screen", []string{"full screen"}, Cursor{0, 11, true}, true, ""},
		{"back from alternate screen", "main\x1b[?1049hfull\x1b[?1049l", []string{"main"}, Cursor{0, 4, true}, false, ""},
		{"title and hidden cursor", "\x1b]2;my title\x07\x1b[?25lx", []string{"x"}, Cursor{0, 1, false}, false, "my title"},
		{"erase line", "abcdef\r\x1b[Kxy", []string{"xy"}, Cursor{0, 2, true}, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newScreen(t, Options{Rows: 5, Cols: 20})
			s.Write([]byte(tc.input))
			sn := s.Snapshot(0)
			if got := TrimBottom(sn.Lines); !slices.Equal(got, tc.lines) {
				t.Fatalf("lines %q, want %q", got, tc.lines)
			}
			if sn.Cursor != tc.cursor || sn.AltScreen != tc.alt || sn.Title != tc.title {
				t.Fatalf("cursor %+v alt %v title %q, want %+v %v %q", sn.Cursor, sn.AltScreen, sn.Title, tc.cursor, tc.alt, tc.title)
			}
			if sn.Rows != 5 || sn.Cols != 20 || len(sn.Lines) != 5 || sn.Written != int64(len(tc.input)) {
				t.Fatalf("size %dx%d, %d lines, written %d", sn.Cols, sn.Rows, len(sn.Lines), sn.Written)
			}
		})
	}
}

func TestScreen_AnswersQueries(t *testing.T) {
	got := make(chan string, 4)
	s := newScreen(t, Options{Rows: 5, Cols: 20, Reply: func(p []byte) { got <- string(p) }})
	s.Write([]byte("abc\x1b[6n"))
	s.Write([]byte("\r\n\x1b[c"))
	for _, want := range []string{"\x1b[1;4R", "\x1b[?62;1;6;22c"} {
		select {
		case r := <-got:
			if r != want {
				t.Fatalf("reply %q, want %q", r, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no reply %q", want)
		}
	}
}

// A program that asks but never reads its answers must not block the
// screen: answers beyond the queue are dropped.
func TestScreen_StuckReplyDoesNotBlockWrite(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	n := 0
	s, err := New(Options{Rows: 5, Cols: 20, Reply: func([]byte) {
		<-release
		mu.Lock()
		n++
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.Write(bytes.Repeat([]byte("\x1b[6n"), 10*replyQueue))
	if sn := s.Snapshot(0); sn.Written != int64(40*replyQueue) {
		t.Fatalf("written %d", sn.Written)
	}
	close(release)
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if n < 1 || n > replyQueue+2 {
		t.Fatalf("%d answers delivered, want between 1 and %d", n, replyQueue+2)
	}
}

func TestScreen_ResizeAndScrollback(t *testing.T) {
	s := newScreen(t, Options{Rows: 3, Cols: 10, Scrollback: 5})
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(writer{s}, "line %d\r\n", i)
	}
	sn := s.Snapshot(3)
	if want := []string{"line 9", "line 10", ""}; !slices.Equal(sn.Lines, want) {
		t.Fatalf("lines %q, want %q", sn.Lines, want)
	}
	if want := []string{"line 6", "line 7", "line 8"}; !slices.Equal(sn.Scrollback, want) {
		t.Fatalf("scrollback %q, want %q", sn.Scrollback, want)
	}
	v := sn.Version
	if err := s.Resize(4, 30); err != nil {
		t.Fatal(err)
	}
	sn = s.Snapshot(0)
	if sn.Rows != 4 || sn.Cols != 30 || len(sn.Lines) != 4 || sn.Version == v {
		t.Fatalf("after resize: %dx%d, %d lines, version %d (was %d)", sn.Cols, sn.Rows, len(sn.Lines), sn.Version, v)
	}
	for _, bad := range [][2]int{{0, 10}, {10, 0}, {1001, 10}} {
		if err := s.Resize(bad[0], bad[1]); err == nil {
			t.Fatalf("resize %v accepted", bad)
		}
	}
	if _, err := New(Options{Rows: 0, Cols: 80}); err == nil {
		t.Fatal("New accepted 0 rows")
	}
}

func TestChanged_Rows(t *testing.T) {
	if got := Changed(nil, []string{"a", "b"}); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("first look: %v", got)
	}
	if got := Changed([]string{"a", "b", "c"}, []string{"a", "x", "c"}); !slices.Equal(got, []int{1}) {
		t.Fatalf("one row: %v", got)
	}
	if got := Changed([]string{"a"}, []string{"a", "b"}); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("resized: %v", got)
	}
}

// Fast-forward must leave exactly the text a full rendering leaves: on
// screen, in scrollback, and the cursor. The reference renders every byte.
func TestScreen_FastForwardMatchesFullRendering(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "beta", "\x1b[1;32mgreen\x1b[0m", "日本", "x\ty", "a\bb", "\x1b[K", "\a", "long-" + strings.Repeat("w", 70),
		// Styles left on across lines, and the resets that end them.
		"\x1b[33m", "\x1b[7m", "\x1b[4m", "\x1b[m", "\x1b[0;35m", "\x1b[22;1m"}
	plainText := func(lines int) string {
		var b strings.Builder
		for range lines {
			for range rng.IntN(6) {
				b.WriteString(words[rng.IntN(len(words))] + " ")
			}
			if rng.IntN(10) == 0 {
				b.WriteString("\rover")
			}
			b.WriteString("\r\n")
		}
		return b.String()
	}
	cases := []struct {
		name     string
		input    string
		wantSkip bool
	}{
		{"plain flood", plainText(3000), true},
		{"starts mid-line", "partial line " + plainText(3000), true},
		{"scroll region kept", "\x1b[1;20r" + plainText(3000) + "\x1b[24;1Hstatus", false},
		{"alternate screen", "\x1b[?1049h" + plainText(3000), false},
		{"title between floods", plainText(1000) + "\x1b]2;t\x07" + plainText(1000), true},
		{"cursor movement after", plainText(3000) + "\x1b[5;5Hmid" + plainText(10), true},
		{"bare newlines", strings.ReplaceAll(plainText(2000), "\r\n", "\n"), false},
		{"autowrap off", "\x1b[?7l" + plainText(3000), false},
		{"insert mode", "\x1b[4h" + plainText(3000), false},
		{"autowrap back on", "\x1b[?7l" + plainText(300) + "\x1b[?7h" + plainText(20000), true},
		{"after a full reset", "\x1b[1;10r\x1b[4h\x1bc" + plainText(20000), true},
		// Lines scrolled in with a background colour are blanks in it.
		{"background colour on", "\x1b[44m" + strings.Repeat("line\r\n", 3000), false},
		{"background colour later", plainText(3000) + "\x1b[41m" + strings.Repeat("line\r\n", 3000), true},
		{"background colour off", "\x1b[44mx\x1b[0m\r\n" + plainText(3000), true},
		{"background restored with the cursor", "\x1b[44m\x1b7\x1b[0m\x1b8" + strings.Repeat("line\r\n", 3000), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref := newScreen(t, Options{Rows: 24, Cols: 80})
			ref.noFastForward = true
			ff := newScreen(t, Options{Rows: 24, Cols: 80})
			data := []byte(tc.input)
			ref.Write(data)
			// Feed in uneven chunks, as a backlog arrives.
			for p := data; len(p) > 0; {
				n := min(len(p), 1+rng.IntN(512<<10))
				ff.Write(p[:n])
				p = p[n:]
			}
			a, b := ref.StyledSnapshot(DefaultScrollback), ff.StyledSnapshot(DefaultScrollback)
			for y := range a.Styles {
				if !slices.Equal(a.Styles[y], b.Styles[y]) {
					t.Fatalf("row %d %q: styles %v, fast-forward %v", y, a.Lines[y], a.Styles[y], b.Styles[y])
				}
			}
			if !slices.Equal(a.Lines, b.Lines) || a.Cursor != b.Cursor || a.Title != b.Title {
				t.Fatalf("screens differ:\n--- full ---\n%s\n%+v\n--- fast-forward ---\n%s\n%+v", strings.Join(a.Lines, "\n"), a.Cursor, strings.Join(b.Lines, "\n"), b.Cursor)
			}
			if !slices.Equal(a.Scrollback, b.Scrollback) {
				t.Fatalf("scrollback differs: %d vs %d lines; last %q vs %q", len(a.Scrollback), len(b.Scrollback), a.Scrollback[len(a.Scrollback)-1], b.Scrollback[len(b.Scrollback)-1])
			}
			if skipped := ff.Skipped() > 0; skipped != tc.wantSkip {
				t.Fatalf("skipped %d bytes; want skipping %v", ff.Skipped(), tc.wantSkip)
			}
		})
	}
}

// writer adapts Screen.Write to io.Writer for fmt.
type writer struct{ s *Screen }

func (w writer) Write(p []byte) (int, error) { w.s.Write(p); return len(p), nil }

// A write that ends inside an escape sequence (a read or a replay chunk
// cut there) must not stop the next write from fast-forwarding: its first
// line finishes the sequence. Before, every such write was drawn line by
// line (seconds per 4 MiB).
func TestScreen_FastForwardAfterOpenSequence(t *testing.T) {
	line := "\x1b[1;32mok\x1b[0m step 12 of 40: compiling module\r\n"
	data := []byte(strings.Repeat(line, 20000))
	for _, cut := range []int{1, 2, 5, 10} { // inside ESC [ 1 ; 3 2 m, and inside ESC [ 0 m
		t.Run(fmt.Sprintf("cut at %d", cut), func(t *testing.T) {
			at := len(line)*10000 + cut
			ref := newScreen(t, Options{Rows: 24, Cols: 80})
			ref.noFastForward = true
			ref.Write(data)
			ff := newScreen(t, Options{Rows: 24, Cols: 80})
			ff.Write(data[:at])
			before := ff.Skipped()
			ff.Write(data[at:])
			if skipped := ff.Skipped() - before; skipped < int64(len(data)-at)/2 {
				t.Fatalf("the write after the cut skipped %d of %d bytes", skipped, len(data)-at)
			}
			a, b := ref.StyledSnapshot(DefaultScrollback), ff.StyledSnapshot(DefaultScrollback)
			if !slices.Equal(a.Lines, b.Lines) || a.Cursor != b.Cursor || !slices.Equal(a.Scrollback, b.Scrollback) || fmt.Sprint(a.Styles) != fmt.Sprint(b.Styles) {
				t.Fatalf("screens differ:\n%q\n%q", a.Lines, b.Lines)
			}
		})
	}
}
