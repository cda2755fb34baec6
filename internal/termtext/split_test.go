package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// streamCorpus has inputs whose cleaned text does not depend on line state
// from earlier reads (no \r overwrites, no cursor motion), so any way of
// cutting them into reads must give exactly the unsplit result.
var streamCorpus = []string{
	"\x1b[1;31mred\x1b[0m plain\r\n",
	"\x1b[38:2::255:0:0mX\x1b[m\x1b[48;5;200mY\x1b[0m\n",
	"a\x1b]0;my title\x07b\x1b]2;朝 ✓ title\x1b\\c\n",
	"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ after\n",
	"\x1b[?2004h>>> \x1b[?2004l",
	"\x1bPq#0;2;0;0;0#1!7~\x1b\\after\x1b_Gf=100;AAAA\x1b\\img",
	"\x1b(Bhi\x1b)0\x1b=x\x1b>\x1b7\x1b8",
	"中文 héllo 😀 e\u0301 \x1b[1mț\x1b[m\r\n",
	"bad \xff \xe4\xb8X \xf0\x9f\x98 \x9b31m end\n",
	"tab\there\x00\x07\x0e\x7f\r\nnext\r\n",
	"\x1b]0;t\x18x\x1b]0;t\x1b[31my\x1b\x1b[1mz",
	"Python 3.11.7 (main)\r\n>>> \x1b[?2004lprint(1)\r\n1\r\n>>> ",
}

// cursorCorpus exercises line-local cursor motion; those collapse only within
// one call, so split-independence is checked at line boundaries.
var cursorCorpus = []string{
	"\r[#   ] 25%\r[##  ] 50%\r[####] 100%\n\x1b[2K\rDone\n",
	"10%\r20%\r100%\nhello\rab\nabc\b\bX\n",
	"hello\x1b[3D\x1b[K!\n\x1b[1mab\x1b[6GX\x1b[0m\nabcdef\x1b[4D\x1b[2P\n",
	"中文\rX\nab\b\b中\ne\u0301x\rE\n",
}

// stream feeds chunks through Clean the way a reader loop does, keeping the
// unconsumed tail for the next call, and flushes with final at the end.
func stream(t *testing.T, chunks ...[]byte) string {
	t.Helper()
	var out strings.Builder
	var pending []byte
	for _, c := range chunks {
		pending = append(pending, c...)
		text, n := Clean(pending, false)
		checkOutput(t, pending, text, n, false)
		out.WriteString(text)
		pending = pending[n:]
	}
	text, n := Clean(pending, true)
	checkOutput(t, pending, text, n, true)
	out.WriteString(text)
	return out.String()
}

// checkOutput asserts the invariants every Clean result must satisfy.
func checkOutput(t *testing.T, in []byte, text string, n int, final bool) {
	t.Helper()
	if n < 0 || n > len(in) || (final && n != len(in)) {
		t.Fatalf("Clean(%q, %v) consumed %d of %d", in, final, n, len(in))
	}
	if !utf8.ValidString(text) {
		t.Fatalf("Clean(%q, %v) = %q: invalid UTF-8", in, final, text)
	}
	for _, r := range text {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			t.Fatalf("Clean(%q, %v) = %q: control %U leaked", in, final, text, r)
		}
	}
}

func TestCleanSplitEveryPosition(t *testing.T) {
	for _, in := range streamCorpus {
		want, _ := Clean([]byte(in), true)
		for k := 0; k <= len(in); k++ {
			got := stream(t, []byte(in[:k]), []byte(in[k:]))
			if got != want {
				t.Fatalf("split %q at %d: got %q, want %q", in, k, got, want)
			}
		}
	}
}

func TestCleanByteAtATime(t *testing.T) {
	for _, in := range streamCorpus {
		want, _ := Clean([]byte(in), true)
		chunks := make([][]byte, len(in))
		for i := range chunks {
			chunks[i] = []byte{in[i]}
		}
		if got := stream(t, chunks...); got != want {
			t.Errorf("byte at a time %q: got %q, want %q", in, got, want)
		}
	}
}

func TestCleanSplitCursorCorpus(t *testing.T) {
	for _, in := range cursorCorpus {
		want, _ := Clean([]byte(in), true)
		for k := 0; k <= len(in); k++ {
			got := stream(t, []byte(in[:k]), []byte(in[k:]))
			// Every cut is checked for the invariants; equality only
			// holds where no overwrite spans the cut.
			if (k == 0 || in[k-1] == '\n') && got != want {
				t.Fatalf("split %q at line boundary %d: got %q, want %q", in, k, got, want)
			}
		}
	}
}

func TestRawSplitEveryPosition(t *testing.T) {
	for _, in := range append(append([]string{}, streamCorpus...), cursorCorpus...) {
		want, _ := Raw([]byte(in), true)
		for k := 0; k <= len(in); k++ {
			t1, n1 := Raw([]byte(in[:k]), false)
			rest := in[n1:]
			t2, n2 := Raw([]byte(rest), true)
			if n1 > k || n2 != len(rest) {
				t.Fatalf("split %q at %d: consumed %d then %d of %d", in, k, n1, n2, len(rest))
			}
			if got := t1 + t2; got != want {
				t.Fatalf("split %q at %d: got %q, want %q", in, k, got, want)
			}
		}
	}
}
