package termtext

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"sgr colors", "\x1b[1;31mred\x1b[0m plain\n", "red plain\n"},
		{"sgr truecolor subparams", "\x1b[38:2::255:0:0mX\x1b[m", "X"},
		{"osc title bel", "\x1b]0;my title\x07text", "text"},
		{"osc title st", "\x1b]2;title\x1b\\text\n", "text\n"},
		{"osc title with 0x9c byte", "\x1b]0;朝\x07ok", "ok"},
		{"osc hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"osc cancelled by CAN", "\x1b]0;t\x18x", "x"},
		{"osc aborted by escape", "\x1b]0;t\x1b[31mx", "x"},
		{"bracketed paste toggles", "\x1b[?2004h>>> \x1b[?2004l", ">>> "},
		{"python prompt", ">>> ", ">>> "},
		{"python banner and prompt", "Python 3.11.7\r\nType \"help\".\r\n>>> ", "Python 3.11.7\nType \"help\".\n>>> "},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"progress bar", "\r[#   ] 25%\r[##  ] 50%\r[####] 100%\n", "[####] 100%\n"},
		{"percent redraw", "10%\r20%\r100%\n", "100%\n"},
		{"cr overwrite keeps tail", "hello\rab", "abllo"},
		{"erase line then cr", "\x1b[2K\rDone\n", "Done\n"},
		{"cr per line", "a\rb\nc\rd\n", "b\nd\n"},
		{"backspace", "abc\b\bX", "aXc"},
		{"backspace at column 0", "\b\bab", "ab"},
		{"invalid utf8", "\xff", "\uFFFD"},
		{"invalid maximal subpart", "a\xe4\xb8X", "a\uFFFDX"},
		{"lone continuation 0x9b is not csi", "\x9b31m", "\uFFFD31m"},
		{"0x9b inside a char", "\x1b[0m\xc8\x9b", "ț"},
		{"charset selection", "\x1b(Bhi\x1b)0", "hi"},
		{"keypad modes", "\x1b=x\x1b>", "x"},
		{"dcs sixel", "\x1bPq#0;2;0;0;0#1!7~\x1b\\after", "after"},
		{"apc kitty graphics", "\x1b_Gf=100;AAAA\x1b\\img", "img"},
		{"pm and sos", "\x1b^pm\x1b\\a\x1bXsos\x1b\\b", "ab"},
		{"esc esc", "\x1b\x1b[1mx", "x"},
		{"c0 and del dropped", "a\x00b\x07c\x0ed\x7fe\x1b[m", "abcde"},
		{"tab kept", "a\tb\x1b[m\n", "a\tb\n"},
		{"erase to end", "hello\x1b[3D\x1b[K!", "he!"},
		{"erase to end default param 0", "hello\x1b[3D\x1b[0K", "he"},
		{"erase to start", "hello\x1b[3D\x1b[1K", "   lo"},
		{"erase to start whole line", "hello\x1b[1K", ""},
		{"erase all keeps column", "hello\x1b[2Kx", "     x"},
		{"column set", "hello\x1b[2GX", "hXllo"},
		{"column set past end pads", "ab\x1b[6GX", "ab   X"},
		{"column default is 1", "ab\x1b[GX", "Xb"},
		{"right past end pads on write", "ab\x1b[3CX", "ab   X"},
		{"right past end without write", "ab\x1b[3C\n", "ab\n"},
		{"left", "abc\x1b[2DX", "aXc"},
		{"left zero means one", "abc\x1b[0DX", "abX"},
		{"left clamps at 0", "abc\x1b[9DX", "Xbc"},
		{"delete chars", "abcdef\x1b[4D\x1b[2P", "abef"},
		{"erase chars", "abcdef\x1b[4D\x1b[2X", "ab  ef"},
		{"erase chars through end", "abcdef\x1b[4D\x1b[9X", "ab"},
		{"insert chars", "abc\x1b[2D\x1b[2@", "a  bc"},
		{"private K is not EL", "abc\x1b[2D\x1b[?K", "abc"},
		{"readline backspace echo", "ab\b\x1b[K\n", "a\n"},
		{"wide overwritten by narrow", "中文\rX", "X 文"},
		{"narrow over wide right half", "中\x1b[2GX", " X"},
		{"wide over narrow", "ab\b\b中", "中"},
		{"combining follows its cell", "e\u0301x\rE", "Ex"},
		{"combining kept", "\x1b[1me\u0301\x1b[m\n", "e\u0301\n"},
		{"emoji", "\x1b[1m😀\x1b[0m ok\n", "😀 ok\n"},
		{"many params no panic", "\x1b[" + strings.Repeat(";", 40) + "5Gx", "x"},
		{"many params sgr", "\x1b[" + strings.Repeat("1;", 40) + "1mx", "x"},
		{"huge motion is bounded", "a\x1b[99999999999999999999CX", "a" + strings.Repeat(" ", maxPadCol-1) + "X"},
		{"long line wraps at terminal width", strings.Repeat("a", 5000) + "\rb", strings.Repeat("a", 2*maxLineCells) + "b" + strings.Repeat("a", 5000-2*maxLineCells-1)},
		{"insert pushes past margin", strings.Repeat("a", maxLineCells) + "\rb\x1b[3@", "b" + strings.Repeat(" ", 3) + strings.Repeat("a", maxLineCells-4)},
		{"combining marks capped", "\x1b[me" + strings.Repeat("\u0301", 100), "e" + strings.Repeat("\u0301", maxComb/2)},
		{"plain utf8 fast path", "héllo 世界\r\n", "héllo 世界\n"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Clean([]byte(tt.in), true)
			if got != tt.want || n != len(tt.in) {
				t.Errorf("Clean(%q, true) = %q, %d; want %q, %d", tt.in, got, n, tt.want, len(tt.in))
			}
		})
	}
}

// TestCleanPartial covers what is held back when more input may follow.
func TestCleanPartial(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		final    bool
		want     string
		consumed int
	}{
		{"incomplete csi held", "abc\x1b[31", false, "abc", 3},
		{"incomplete csi dropped at final", "abc\x1b[31", true, "abc", 7},
		{"lone esc held", "abc\x1b", false, "abc", 3},
		{"lone esc dropped at final", "abc\x1b", true, "abc", 4},
		{"incomplete osc held", "x\x1b]0;title", false, "x", 1},
		{"osc waiting for backslash held", "x\x1b]0;title\x1b", false, "x", 1},
		{"incomplete osc dropped at final", "x\x1b]0;title", true, "x", 10},
		{"incomplete charset held", "x\x1b(", false, "x", 1},
		{"incomplete utf8 held", "a\xe4\xb8", false, "a", 1},
		{"incomplete utf8 held slow path", "\x1b[m\xe4\xb8", false, "", 3},
		{"truncated utf8 at final", "a\xe4\xb8", true, "a\uFFFD", 3},
		{"trailing cr held", "a\r", false, "a", 1},
		{"trailing cr at final", "a\r", true, "a", 2},
		{"trailing cr held slow path", "\x1b[ma\r", false, "a", 4},
		{"prompt without newline", "\x1b[?2004h>>> ", false, ">>> ", 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Clean([]byte(tt.in), tt.final)
			if got != tt.want || n != tt.consumed {
				t.Errorf("Clean(%q, %v) = %q, %d; want %q, %d", tt.in, tt.final, got, n, tt.want, tt.consumed)
			}
		})
	}
}

// TestCleanSplitUTF8 feeds a 3-byte character in two reads the way a caller
// does: the unconsumed tail is prepended to the next read.
func TestCleanSplitUTF8(t *testing.T) {
	t1, n := Clean([]byte("a\xe4\xb8"), false)
	if t1 != "a" || n != 1 {
		t.Fatalf("first read = %q, %d; want %q, 1", t1, n, "a")
	}
	t2, n := Clean([]byte("\xe4\xb8\xadb"), false)
	if t2 != "中b" || n != 4 {
		t.Fatalf("second read = %q, %d; want %q, 4", t2, n, "中b")
	}
}
