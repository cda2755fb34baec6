package session

import "fmt"

// MaxCells is a PTY session's screen budget: rows × cols may not exceed
// it. The emulator keeps two cell grids and the scrollback at the screen's
// width, about 225 bytes per cell, so 1000×1000 cost 225 MB per session;
// 200,000 cells (a 1000-row log view 200 wide, or 400×500, far beyond a 4K
// monitor's terminal) cost about 45 MB at most.
const MaxCells = 200_000

// checkSize refuses a terminal size outside 1..1000 rows and columns or
// over MaxCells, saying what would fit.
func checkSize(rows, cols int) error {
	if rows < 1 || rows > 1000 || cols < 1 || cols > 1000 {
		return fmt.Errorf("%w: rows and cols must be between 1 and 1000 (got %dx%d)", ErrBadArgs, rows, cols)
	}
	if rows*cols > MaxCells {
		return fmt.Errorf("%w: %dx%d is %d cells, over the screen budget of %d cells per session; use fewer rows or cols (e.g. %dx%d)",
			ErrBadArgs, rows, cols, rows*cols, MaxCells, min(rows, MaxCells/cols), cols)
	}
	return nil
}
