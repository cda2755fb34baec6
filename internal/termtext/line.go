package termtext

import (
	"strings"
	"unicode/utf8"
)

// contCell marks the right half of a wide character, so column arithmetic
// stays one slice index per terminal cell.
const contCell rune = -1

// maxLineCells is the width of the modelled terminal. Longer lines wrap
// (what is written so far is committed as text and a new row starts), as a
// real terminal's do; it keeps every line operation O(width) so hostile
// input cannot make Clean quadratic. Plain text is unaffected by wrapping.
const maxLineCells = 2048

// maxComb bounds the zero-width runes kept per cell, so "zalgo" text with
// endless combining marks cannot make appending quadratic.
const maxComb = 64

// maxPadCol bounds how far right cursor motion may pad a line. Real terminals
// stop at their width; without a bound a few bytes like ESC[99999C followed
// by a letter would expand into megabytes of spaces.
const maxPadCol = 1024

// cell is one terminal column of the current line.
type cell struct {
	r rune
	// comb holds zero-width runes (combining marks, ZWJ, variation
	// selectors) that render on top of r and must survive into the text.
	comb string
}

// line is the line currently being drawn: the cells a human would see and the
// cursor column. Only line-local motion is modelled; anything that moves to
// another row is out of scope for plain text.
type line struct {
	// out receives the text of finished (and wrapped) rows.
	out   *strings.Builder
	cells []cell
	col   int
	// lead holds zero-width runes written at column 0, where there is no
	// cell to attach them to.
	lead string
}

// reset empties the line for the next one, keeping the allocation.
func (l *line) reset() {
	l.cells = l.cells[:0]
	l.col = 0
	l.lead = ""
}

// put writes r of width w (1 or 2) at the cursor and advances it.
func (l *line) put(r rune, w int) {
	if l.col == len(l.cells) && w == 1 && l.col < maxLineCells {
		// The overwhelmingly common case: appending at the end.
		l.cells = append(l.cells, cell{r: r})
		l.col++
		return
	}
	if l.col+w > maxLineCells {
		l.flush()
		l.reset()
	}
	for len(l.cells) < l.col {
		l.cells = append(l.cells, cell{r: ' '})
	}
	end := l.col + w
	l.splitWide(l.col)
	l.splitWide(end)
	for len(l.cells) < end {
		l.cells = append(l.cells, cell{})
	}
	l.cells[l.col] = cell{r: r}
	if w == 2 {
		l.cells[l.col+1] = cell{r: contCell}
	}
	l.col = end
}

// putZeroWidth attaches a zero-width rune to the cell left of the cursor,
// which is where a terminal renders it.
func (l *line) putZeroWidth(r rune) {
	if l.col == 0 {
		if len(l.lead) < maxComb {
			l.lead += string(r)
		}
		return
	}
	for len(l.cells) < l.col {
		l.cells = append(l.cells, cell{r: ' '})
	}
	i := l.col - 1
	if l.cells[i].r == contCell && i > 0 {
		i--
	}
	if len(l.cells[i].comb) < maxComb {
		l.cells[i].comb += string(r)
	}
}

// splitWide blanks a wide character that straddles the boundary before
// column i, because overwriting or cutting one half destroys the glyph.
func (l *line) splitWide(i int) {
	if i <= 0 || i >= len(l.cells) || l.cells[i].r != contCell {
		return
	}
	l.cells[i-1] = cell{r: ' '}
	l.cells[i] = cell{r: ' '}
}

// truncate cuts the line at column i.
func (l *line) truncate(i int) {
	if i >= len(l.cells) {
		return
	}
	l.splitWide(i)
	if i == 0 {
		l.lead = ""
	}
	l.cells = l.cells[:i]
}

// blank erases columns [from, to) to spaces. Erasing through the end of the
// line truncates instead, so erased cells never show up as trailing spaces.
func (l *line) blank(from, to int) {
	if to >= len(l.cells) {
		l.truncate(from)
		return
	}
	if from >= to {
		return
	}
	l.splitWide(from)
	l.splitWide(to)
	for i := from; i < to; i++ {
		l.cells[i] = cell{r: ' '}
	}
}

// eraseInLine implements CSI Ps K.
func (l *line) eraseInLine(mode int) {
	switch mode {
	case 0:
		l.truncate(l.col)
	case 1:
		// The cursor's own cell is erased too.
		l.blank(0, l.col+1)
	case 2:
		l.cells = l.cells[:0]
		l.lead = ""
	}
}

// deleteChars implements CSI Ps P: cells right of the deleted ones shift left.
func (l *line) deleteChars(n int) {
	if l.col >= len(l.cells) {
		return
	}
	end := min(l.col+n, len(l.cells))
	l.splitWide(l.col)
	l.splitWide(end)
	l.cells = append(l.cells[:l.col], l.cells[end:]...)
}

// insertChars implements CSI Ps @: blanks are inserted at the cursor.
func (l *line) insertChars(n int) {
	if l.col >= len(l.cells) {
		return
	}
	n = min(n, maxPadCol)
	l.splitWide(l.col)
	l.cells = append(l.cells, make([]cell, n)...)
	copy(l.cells[l.col+n:], l.cells[l.col:])
	for i := l.col; i < l.col+n; i++ {
		l.cells[i] = cell{r: ' '}
	}
	// Cells pushed past the right margin are lost, as on a terminal.
	l.truncate(maxLineCells)
}

// moveTo sets the cursor column, clamped so padding stays bounded.
func (l *line) moveTo(col int) {
	limit := max(len(l.cells), maxPadCol)
	l.col = max(0, min(col, limit))
}

// moveBy moves the cursor right (n > 0) or left (n < 0).
func (l *line) moveBy(n int) {
	// Clamp n first so col+n cannot overflow for absurd parameters.
	n = max(-l.col, min(n, max(len(l.cells), maxPadCol)))
	l.moveTo(l.col + n)
}

// flush writes the visible text of the line to l.out. Cursor positions past
// the end that were never written to are not text, so nothing is padded here.
func (l *line) flush() {
	sb := l.out
	sb.WriteString(l.lead)
	for _, c := range l.cells {
		switch {
		case c.r == contCell:
			continue
		case c.r < utf8.RuneSelf:
			sb.WriteByte(byte(c.r))
		default:
			sb.WriteRune(c.r)
		}
		if c.comb != "" {
			sb.WriteString(c.comb)
		}
	}
}
