package screen

import (
	"fmt"
	"reflect"
	"testing"
)

// TestScreen_StyledRuns checks the runs a styled snapshot reports, and that
// erasing leaves blanks of the current background colour as xterm's back
// colour erase does (curses clears the screen after choosing colours).
func TestScreen_StyledRuns(t *testing.T) {
	cases := []struct {
		name, input string
		want        map[int][]Run // row: runs; rows not listed have none
	}{
		{"plain text has none", "hello\r\nworld", nil},
		{"attributes and colours", "\x1b[1mB\x1b[0m\x1b[2;3;5;6;8;9mF\x1b[0m\x1b[93;104mY\x1b[38;5;200;48;2;1;2;3mZ",
			map[int][]Run{0: {{0, 1, "bold"}, {1, 1, "faint italic blink rapid_blink conceal strike"},
				{2, 1, "fg=bright_yellow bg=bright_blue"}, {3, 1, "fg=200 bg=#010203"}}}},
		{"ED 2 fills with the background colour", "ab\x1b[44m\x1b[2J\x1b[2;3Hx",
			map[int][]Run{0: {{0, 20, "bg=blue"}}, 1: {{0, 20, "bg=blue"}}, 2: {{0, 20, "bg=blue"}}}},
		{"ED 2 with the default background leaves none", "\x1b[44mab\x1b[0m\x1b[2J", nil},
		{"ED 1 erases up to the cursor in colour and keeps the rest", "abcdef\r\nghijkl\x1b[1;3H\x1b[41m\x1b[1J",
			map[int][]Run{0: {{0, 3, "bg=red"}}}},
		{"ED 0 and EL keep the colour", "\x1b[2;1H\x1b[42m\x1b[J\x1b[1;15H\x1b[43m\x1b[K",
			map[int][]Run{0: {{14, 6, "bg=yellow"}}, 1: {{0, 20, "bg=green"}}, 2: {{0, 20, "bg=green"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newScreen(t, Options{Rows: 3, Cols: 20})
			s.Write([]byte(tc.input))
			sn := s.StyledSnapshot(0)
			got := map[int][]Run{}
			for y, runs := range sn.Styles {
				if len(runs) > 0 {
					got[y] = runs
				}
			}
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("runs %v\nwant %v\nlines %q", got, tc.want, sn.Lines)
			}
			if plain := s.Snapshot(0); plain.Styles != nil || fmt.Sprint(plain.Lines) != fmt.Sprint(sn.Lines) {
				t.Fatalf("plain snapshot: styles %v, lines %q vs %q", plain.Styles, plain.Lines, sn.Lines)
			}
		})
	}
}
