package screen

import (
	"strings"
)

// Cursor is where the next character will be drawn, 0-based: Row indexes
// Snapshot.Lines.
type Cursor struct {
	Row     int
	Col     int
	Visible bool
}

// Snapshot is the screen at one moment.
type Snapshot struct {
	Rows, Cols int
	// Lines holds every row of the visible screen, trailing blanks trimmed.
	Lines      []string
	Cursor     Cursor
	AltScreen  bool
	Title      string
	Scrollback []string // lines above the screen, oldest first
	// Styles holds, per visible row, its runs of non-default style; only
	// StyledSnapshot fills it (nil otherwise, and nil for a plain row).
	Styles  [][]Run
	Written int64 // bytes of output rendered into this snapshot
	// Version changes whenever output or a resize changed the screen, so a
	// waiter can tell "nothing happened" without comparing text.
	Version uint64
}

// Snapshot copies the screen and up to scrollback lines that scrolled off
// its top (the main screen's; the alternate screen keeps none).
func (s *Screen) Snapshot(scrollback int) Snapshot {
	return s.snapshot(scrollback, false)
}

// StyledSnapshot is Snapshot with the visible rows' Styles.
func (s *Screen) StyledSnapshot(scrollback int) Snapshot {
	return s.snapshot(scrollback, true)
}

func (s *Screen) snapshot(scrollback int, styles bool) Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.build()
	e := s.emu
	rows, cols := e.Height(), e.Width()
	snap := Snapshot{Rows: rows, Cols: cols, Lines: make([]string, rows), AltScreen: e.IsAltScreen(),
		Title: s.title, Written: s.written, Version: s.writes}
	var b strings.Builder
	for y := range rows {
		b.Reset()
		for x := 0; x < cols; x++ {
			c := e.CellAt(x, y)
			switch {
			case c == nil:
				b.WriteByte(' ')
			case c.Width == 0 && c.Content == "":
				// The right half of a wide character.
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		snap.Lines[y] = strings.TrimRight(b.String(), " ")
	}
	if styles {
		snap.Styles = make([][]Run, rows)
		for y := range rows {
			snap.Styles[y] = s.rowRuns(y, nil)
		}
	}
	pos := e.CursorPosition()
	snap.Cursor = Cursor{Row: pos.Y, Col: pos.X, Visible: !s.cursorHidden}
	if scrollback > 0 && !snap.AltScreen {
		if sb := e.Scrollback(); sb != nil {
			all := sb.Lines()
			all = all[max(0, len(all)-scrollback):]
			snap.Scrollback = make([]string, len(all))
			for i, l := range all {
				snap.Scrollback[i] = strings.TrimRight(l.String(), " ")
			}
		}
	}
	return snap
}

// Text is the visible screen as text: its lines joined by newlines, with
// empty rows at the bottom left out.
func (sn Snapshot) Text() string {
	return strings.Join(TrimBottom(sn.Lines), "\n")
}

// TrimBottom drops empty rows at the end of lines.
func TrimBottom(lines []string) []string {
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	return lines[:n]
}

// Changed lists the rows of now whose text differs from before; every row
// when before has another height (a resize) or is nil (the first look).
func Changed(before, now []string) []int {
	var rows []int
	for i, l := range now {
		if len(before) != len(now) || before[i] != l {
			rows = append(rows, i)
		}
	}
	return rows
}
