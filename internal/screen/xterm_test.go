package screen

import (
	"slices"
	"strings"
	"testing"
)

// xtermCases are the cases of TestScreen_DrawsAsXterm; the lazy screen's
// test replays them too.
var xtermCases = []struct {
	name   string
	input  string
	lines  []string
	cursor Cursor // Visible is ignored
	alt    bool
	sbLen  int // scrollback lines, -1: don't check
}{
	{"1049 reset on the main screen restores the cursor",
		"\x1b[3;4H\x1b7\x1b[5;1H\x1b[?1049lQ", []string{"", "", "   Q"}, Cursor{Row: 2, Col: 4}, false, -1},
	{"dialog's ending does not scroll its box",
		"\x1b[?1049h\x1b[Hbox top\x1b[5;1Hbox bottom\x1b[?1049l\x1b[5;1H\x1b[?1049l\r\nafter", []string{"", "after"}, Cursor{Row: 1, Col: 5}, false, -1},
	{"1049 round trip keeps the main screen", "main\x1b[?1049hALT\x1b[?1049lX", []string{"mainX"}, Cursor{Row: 0, Col: 5}, false, -1},
	{"mode 47 switches screens", "main\x1b[?47h\x1b[HALT", []string{"ALT"}, Cursor{Row: 0, Col: 3}, true, -1},
	{"mode 47 back shows the main screen, cursor kept", "main\x1b7\x1b[?47hALT\x1b[?47l\x1b8X", []string{"mainX"}, Cursor{Row: 0, Col: 5}, false, -1},
	{"entering the alternate screen keeps the cursor", "main\x1b[?1047hALT", []string{"    ALT"}, Cursor{Row: 0, Col: 7}, true, -1},
	{"mode 47 with other modes in one sequence", "\x1b[?25;47hx", []string{"x"}, Cursor{Row: 0, Col: 1}, true, -1},
	{"NEL", "ab\x1bEcd", []string{"ab", "cd"}, Cursor{Row: 1, Col: 2}, false, -1},
	{"NEL scrolls at the bottom", "1\r\n2\r\n3\r\n4\r\n5\x1bEx", []string{"2", "3", "4", "5", "x"}, Cursor{Row: 4, Col: 1}, false, -1},
	{"insert mode inserts", "abcdef\x1b[4h\x1b[1;3HXY", []string{"abXYcdef"}, Cursor{Row: 0, Col: 4}, false, -1},
	{"insert mode pushes off the edge", "abcdefghijklmnopqrs\x1b[4h\x1b[1;19HXY", []string{"abcdefghijklmnopqrXY"}, Cursor{Row: 0, Col: 19}, false, -1},
	{"insert mode with a wide character", "abcdef\x1b[4h\x1b[1;3H中", []string{"ab中cdef"}, Cursor{Row: 0, Col: 4}, false, -1},
	{"replace mode again", "abcdef\x1b[4h\x1b[4l\x1b[1;3HXY", []string{"abXYef"}, Cursor{Row: 0, Col: 4}, false, -1},
	{"ED 3 keeps the screen", "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\x1b[3Jx", []string{"3", "4", "5", "6", "7x"}, Cursor{Row: 4, Col: 2}, false, 0},
	{"SCORC", "\x1b[2;3H\x1b[s\x1b[5;1Hxx\x1b[uZ", []string{"", "  Z", "", "", "xx"}, Cursor{Row: 1, Col: 3}, false, -1},
	{"wide character wraps at the last column", "xxxxxxxxxxxxxxxxxxx中", []string{"xxxxxxxxxxxxxxxxxxx", "中"}, Cursor{Row: 1, Col: 2}, false, -1},
	{"wide character ending at the last column waits to wrap", "xxxxxxxxxxxxxxxxxx中Z", []string{"xxxxxxxxxxxxxxxxxx中", "Z"}, Cursor{Row: 1, Col: 1}, false, -1},
	{"wide run wraps whole", "中文字中文字中文字中文", []string{"中文字中文字中文字中", "文"}, Cursor{Row: 1, Col: 2}, false, -1},
	{"pending wrap then wide", "xxxxxxxxxxxxxxxxxxx\x1b[31mx\x1b[m中", []string{"xxxxxxxxxxxxxxxxxxxx", "中"}, Cursor{Row: 1, Col: 2}, false, -1},
	{"wide wrap at the bottom scrolls", "1\r\n2\r\n3\r\n4\r\nxxxxxxxxxxxxxxxxxxx中", []string{"2", "3", "4", "xxxxxxxxxxxxxxxxxxx", "中"}, Cursor{Row: 4, Col: 2}, false, -1},
	{"insert blank before a wide character", "a中文b\x1b[1;2H\x1b[@", []string{"a 中文b"}, Cursor{Row: 0, Col: 1}, false, -1},
	{"insert blank on the right half", "a中文b\x1b[1;3H\x1b[@", []string{"a   文b"}, Cursor{Row: 0, Col: 2}, false, -1},
	{"insert pushes a wide character off the edge", "xxxxxxxxxxxxxxxxxx中\x1b[1;1H\x1b[@", []string{" xxxxxxxxxxxxxxxxxx"}, Cursor{Row: 0, Col: 0}, false, -1},
	{"delete a wide character", "a中文字b\x1b[1;2H\x1b[2P", []string{"a文字b"}, Cursor{Row: 0, Col: 1}, false, -1},
	{"delete on the right half", "a中文b\x1b[1;3H\x1b[P", []string{"a 文b"}, Cursor{Row: 0, Col: 2}, false, -1},
	{"delete half of a wide character", "a中文字b\x1b[1;4H\x1b[P", []string{"a中 字b"}, Cursor{Row: 0, Col: 3}, false, -1},
	{"delete in plain text", "abcdef\x1b[1;2H\x1b[2P", []string{"adef"}, Cursor{Row: 0, Col: 1}, false, -1},
	{"combining mark after a letter", "e\u0301 ok", []string{"e\u0301 ok"}, Cursor{Row: 0, Col: 4}, false, -1},
	{"combining mark after a wide character", "中\u0301x", []string{"中\u0301x"}, Cursor{Row: 0, Col: 3}, false, -1},
	{"combining mark at the last column", "xxxxxxxxxxxxxxxxxxxe\u0301", []string{"xxxxxxxxxxxxxxxxxxxe\u0301"}, Cursor{Row: 0, Col: 19}, false, -1},
	{"two combining marks", "a\u0301\u0302b", []string{"a\u0301\u0302b"}, Cursor{Row: 0, Col: 2}, false, -1},
	{"DEC special graphics", "\x1b(0lqkxyz{|}~\x1b(Bq", []string{"┌─┐│≤≥π≠£·q"}, Cursor{Row: 0, Col: 11}, false, -1},
	{"DEC graphics by SO and SI", "\x1b)0a\x0elqk\x0fb\x1b(0q\x1b(B", []string{"a┌─┐b─"}, Cursor{Row: 0, Col: 6}, false, -1},
	{"G0 designated while shifted out", "\x1b)0\x0e\x1b(Bq\x0fq\x1b(0\x0eq\x0fq\x1b(B", []string{"─q──"}, Cursor{Row: 0, Col: 4}, false, -1},
	{"ED 1 erases up to the cursor", "11111\r\n22222\r\n33333\x1b[2;3H\x1b[1J", []string{"", "   22", "33333"}, Cursor{Row: 1, Col: 2}, false, -1},
	{"control inside a CSI", "a\x1b[2\rBx\x1b[?2\n5lY", []string{"a", "", "x", " Y"}, Cursor{Row: 3, Col: 2}, false, -1},
	{"heart with VS16 is one column", "\u2764\ufe0fX", []string{"\u2764\ufe0fX"}, Cursor{Row: 0, Col: 2}, false, -1},
	{"emoji are two columns", "\U0001F600X", []string{"\U0001F600X"}, Cursor{Row: 0, Col: 3}, false, -1},
	{"ZWJ sequence is its code points' widths", "\U0001F468\u200d\U0001F469X", []string{"\U0001F468\u200d\U0001F469X"}, Cursor{Row: 0, Col: 5}, false, -1},
	{"REP of a wide character", "中\x1b[2b", []string{"中中中"}, Cursor{Row: 0, Col: 6}, false, -1},
	{"REP of an ASCII character after a wide one", "中a\x1b[2b", []string{"中aaa"}, Cursor{Row: 0, Col: 5}, false, -1},
	{"title with UTF-8 is not printed", "\x1b]2;héllo 中\x07x", []string{"x"}, Cursor{Row: 0, Col: 1}, false, -1},
	{"colour kept on a wide character", "\x1b[31m中\x1b[m", []string{"中"}, Cursor{Row: 0, Col: 2}, false, -1},
}

// TestScreen_DrawsAsXterm covers each place where the emulator on its own
// differs from xterm (ctlseqs); the expected screens are xterm's. Every
// case is also fed one byte per Write, so the print path's state across
// writes (a code point or a sequence split in two) is covered too.
func TestScreen_DrawsAsXterm(t *testing.T) {
	for _, tc := range xtermCases {
		for _, bytewise := range []bool{false, true} {
			name := tc.name
			if bytewise {
				name += "/bytewise"
			}
			t.Run(name, func(t *testing.T) {
				s := newScreen(t, Options{Rows: 5, Cols: 20, Scrollback: 10})
				if bytewise {
					for i := range len(tc.input) {
						s.Write([]byte{tc.input[i]})
					}
				} else {
					s.Write([]byte(tc.input))
				}
				sn := s.Snapshot(100)
				if got := TrimBottom(sn.Lines); !slices.Equal(got, tc.lines) {
					t.Fatalf("lines\n%q\nwant\n%q", got, tc.lines)
				}
				if sn.Cursor.Row != tc.cursor.Row || sn.Cursor.Col != tc.cursor.Col || sn.AltScreen != tc.alt {
					t.Fatalf("cursor %d,%d alt %v; want %d,%d alt %v", sn.Cursor.Row, sn.Cursor.Col, sn.AltScreen, tc.cursor.Row, tc.cursor.Col, tc.alt)
				}
				if tc.sbLen >= 0 && len(sn.Scrollback) != tc.sbLen {
					t.Fatalf("scrollback %q, want %d lines", sn.Scrollback, tc.sbLen)
				}
			})
		}
	}
}

// A CJK run longer than the row wraps every character: 50 of them at 80
// columns fill the first row with 40 and leave 10 on the second.
func TestScreen_WideRunWraps(t *testing.T) {
	s := newScreen(t, Options{Rows: 24, Cols: 80})
	run := strings.Repeat("字", 50)
	s.Write([]byte(run))
	sn := s.Snapshot(0)
	if sn.Lines[0] != strings.Repeat("字", 40) || sn.Lines[1] != strings.Repeat("字", 10) {
		t.Fatalf("rows %q / %q", sn.Lines[0], sn.Lines[1])
	}
	if sn.Cursor.Row != 1 || sn.Cursor.Col != 20 {
		t.Fatalf("cursor %+v", sn.Cursor)
	}
}
