package screen

import (
	uv "github.com/charmbracelet/ultraviolet"
)

// Insert and delete characters (ICH, DCH) in rows that hold wide
// characters. The emulator moves cells one at a time through a setter that
// blanks any wide character it overwrites, so shifting a wide character
// blanks it and everything after it. These versions rebuild the cursor's
// row instead, the way xterm does: a wide character that the operation
// would split (the cursor on its right half, or one straddling the edge
// where cells are pushed off or pulled in) becomes blanks first.
//
// They run only without left/right margins (the emulator keeps those
// cases) and return whether they handled the sequence.

// row copies the cursor's row; cells are copied by value.
func (s *Screen) row(y int) []uv.Cell {
	w := s.emu.Width()
	cells := make([]uv.Cell, w)
	for x := range w {
		if c := s.emu.CellAt(x, y); c != nil {
			cells[x] = *c
		} else {
			cells[x] = uv.EmptyCell
		}
	}
	return cells
}

// blankSplit blanks the wide character covering column x when x is not
// its first column.
func blankSplit(cells []uv.Cell, x int) {
	if x <= 0 || x >= len(cells) || cells[x].Width != 0 {
		return
	}
	for h := x - 1; h >= 0; h-- {
		if w := cells[h].Width; w > 1 {
			if h+w > x {
				for i := h; i < h+w && i < len(cells); i++ {
					cells[i] = uv.EmptyCell
				}
			}
			return
		}
		if cells[h].Width == 1 {
			return
		}
	}
}

// setRow writes cells back: blanks first (so no wide character is left
// half-overwritten), then every cell that starts a character.
func (s *Screen) setRow(y int, cells []uv.Cell) {
	for x := range cells {
		s.emu.SetCell(x, y, &uv.EmptyCell)
	}
	for x := range cells {
		if cells[x].Width > 0 {
			c := cells[x]
			s.emu.SetCell(x, y, &c)
		}
	}
}

func (s *Screen) insertCells(n int) bool {
	if s.lrMargins {
		return false
	}
	pos := s.emu.CursorPosition()
	cells := s.row(pos.Y)
	w := len(cells)
	n = min(n, w-pos.X)
	blankSplit(cells, pos.X)
	blankSplit(cells, w-n) // the character pushed partly off the edge
	copy(cells[pos.X+n:], cells[pos.X:w-n])
	for i := pos.X; i < pos.X+n; i++ {
		cells[i] = uv.EmptyCell
	}
	s.setRow(pos.Y, cells)
	return true
}

func (s *Screen) deleteCells(n int) bool {
	if s.lrMargins {
		return false
	}
	pos := s.emu.CursorPosition()
	cells := s.row(pos.Y)
	w := len(cells)
	n = min(n, w-pos.X)
	blankSplit(cells, pos.X)
	blankSplit(cells, pos.X+n) // the character whose left part is deleted
	copy(cells[pos.X:], cells[pos.X+n:])
	for i := w - n; i < w; i++ {
		cells[i] = uv.EmptyCell
	}
	s.setRow(pos.Y, cells)
	return true
}

// eraseAbove is ED 1: the rows above the cursor and its row up to and
// including the cursor's column become blanks of the current background
// colour. The emulator's ED 1 blanks the cursor's whole row (with that
// colour), so the cells after the cursor are put back; a wide character
// the cursor's column splits stays blank.
func (s *Screen) eraseAbove() {
	pos := s.emu.CursorPosition()
	cells := s.row(pos.Y)
	s.erasing = true
	s.nested("\x1b[1J")
	s.erasing = false
	for x := pos.X + 1; x < len(cells); x++ {
		if cells[x].Width > 0 {
			c := cells[x]
			s.emu.SetCell(x, pos.Y, &c)
		}
	}
}
