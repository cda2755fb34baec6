package screen

import (
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/mattn/go-runewidth"
)

// Printing characters as xterm does, in front of the emulator.
//
// The emulator's print path, which no hook reaches, differs from xterm
// and from what programs assume: it groups runes into grapheme clusters
// and measures them (U+2764 U+FE0F takes 2 columns where wcwidth, and so
// every program laying out text, counts 1), drops a combining mark that
// follows an ASCII letter, drops a wide character that does not fit in
// the last column instead of wrapping it, gives a wide character that
// ends in the last column no pending wrap, and ignores insert mode.
//
// So Write scans the output with the parser's own state machine (scan)
// and feeds the emulator everything except printable characters outside
// ASCII, which it places itself, one code point at a time as xterm does:
//   - a code point of width 1 or 2 (wcwidth) is printed as that many
//     ASCII placeholders, so the emulator applies the cursor, pen, link,
//     autowrap and pending-wrap rules, and then the placeholders' cells
//     are replaced by the real character; a wide character at the last
//     column first wraps to the next line (xterm leaves that column as is);
//   - a code point of width 0 (combining marks, variation selectors, ZWJ)
//     joins the cell printed just before it, where it must be known
//     exactly; the ASCII character before one is fed on its own to learn
//     its cell, and so is the last one of each write, in case the mark
//     arrives in the next;
//   - in insert mode (IRM) each character is preceded by an ICH of its
//     width.
// ASCII text keeps the emulator's fast path. Two more fixes ride on the
// scan: SO and SI (charsets.go), and a C0 control inside a CSI, which is
// fed before the sequence (executed in place, the parser would lose the
// sequence's prefix); for that, an unfinished ESC or CSI sequence at the
// end of a write is held back for the next.

// widths measures code points as wcwidth does in a non-CJK locale (not
// the process's locale: the width must not depend on where agentty runs).
var widths = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// scanState is where the parser is between bytes, as far as deciding
// which bytes are printed characters goes.
type scanState uint8

const (
	scanGround scanState = iota
	scanEsc              // after ESC (and any intermediates)
	scanCSI              // inside a control sequence
	scanOSC              // inside an OSC string: BEL, ST, CAN or SUB ends it
	scanString           // inside a DCS, SOS, PM or APC string: ST, CAN or SUB
)

// printer feeds one emulator through the print path. Guarded by the
// Screen's mu.
type printer struct {
	emu *vt.Emulator
	// modes the print path follows: insert (IRM) on, autowrap off; the
	// Screen's, kept by its mode callbacks; nil means the defaults.
	modes map[ansi.Mode]bool

	scan         scanState // the parser's state after the bytes fed so far
	carry        []byte    // held back for the next write: a split code point or CSI
	lastX, lastY int       // the cell printed last, valid when lastOK
	lastOK       bool      // nothing but printing happened since that cell
	lastRune     rune      // the last character, if placed here (for REP); 0 if not
	seqStart     int       // where in this write the open ESC or CSI sequence started; -1 if earlier

	// Character sets for SO and SI (see charsets.go).
	g0, g1      byte // designated final byte (0 means B, ASCII)
	shifted     bool // SO is in effect: G1 is shown
	designating bool // feeding our own designation
}

// write feeds the Screen's emulator and keeps pendingEsc. Called under mu.
func (s *Screen) write(p []byte) {
	s.pr.write(p)
	s.pendingEsc = s.pr.scan != scanGround || len(s.pr.carry) > 0
}

// write feeds the emulator, placing non-ASCII characters itself.
func (s *printer) write(p []byte) {
	if len(s.carry) > 0 { // a code point split across writes
		p = append(s.carry, p...)
		s.carry = nil
	}
	fed := 0 // p[:fed] went to the emulator
	s.seqStart = -1
	feed := func(end int) {
		if end > fed {
			_, _ = s.emu.Write(p[fed:end])
			fed = end
		}
	}
	for i := 0; i < len(p); {
		c := p[i]
		if s.scan == scanGround && c >= 0x20 && c < 0x7f {
			j := i + 1
			for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
				j++
			}
			s.lastRune = 0
			switch {
			case s.modes[ansi.ModeInsertReplace]:
				feed(i)
				for k := i; k < j; k++ {
					s.feed("\x1b[@")
					s.printASCII(p[k])
				}
				fed = j
			case j == len(p) || p[j] >= 0xc2 && p[j] <= 0xf4:
				// A mark may follow (now or in the next write): learn
				// where the last character lands.
				feed(j - 1)
				s.printASCII(p[j-1])
				fed = j
			}
			i = j
			continue
		}
		if c >= 0xc2 && c <= 0xf4 && s.scan != scanOSC && s.scan != scanString {
			// The parser collects a whole code point from any state but
			// strings, whatever the following bytes are.
			n := 2
			if c >= 0xf0 {
				n = 4
			} else if c >= 0xe0 {
				n = 3
			}
			feed(i)
			if i+n > len(p) {
				s.carry = append([]byte(nil), p[i:]...)
				fed = len(p)
				break
			}
			r, _ := utf8.DecodeRune(p[i : i+n])
			s.scan = scanGround
			s.printRune(r)
			i += n
			fed = i
			continue
		}
		s.lastOK = false
		prev := s.scan
		if prev == scanCSI && c < 0x20 && c != 0x1b && c != 0x18 && c != 0x1a && s.seqStart >= fed {
			// A control inside a control sequence is executed where it
			// stands. The parser does that but then loses the sequence's
			// prefix and intermediates, so the control goes first.
			feed(s.seqStart)
			_, _ = s.emu.Write(p[i : i+1])
			_, _ = s.emu.Write(p[s.seqStart:i])
			i++
			fed = i
			continue
		}
		if prev == scanGround && (c == 0x0e || c == 0x0f) {
			feed(i + 1)
			s.shift(c == 0x0e)
			i++
			continue
		}
		s.scan = nextScan(prev, c)
		if c == 0x1b || c == 0x9b {
			s.seqStart = i
		}
		i++
		if s.scan == scanGround && (prev == scanCSI && (c == 'h' || c == 'l') || prev == scanEsc && c == 'c') {
			// A mode may have changed (IRM, autowrap, a reset): the
			// emulator must see it before the next character is placed.
			feed(i)
		}
	}
	if (s.scan == scanCSI || s.scan == scanEsc) && len(s.carry) == 0 && s.seqStart >= fed && len(p)-s.seqStart <= maxHeldCSI {
		// Hold an unfinished sequence back until its end comes, so a
		// control inside a CSI can still go first (above).
		feed(s.seqStart)
		s.carry = append([]byte(nil), p[s.seqStart:]...)
		s.scan = scanGround
		return
	}
	feed(len(p))
}

// maxHeldCSI bounds the start of a control sequence held back for the
// next write; a longer one is fed as it comes.
const maxHeldCSI = 64

// nextScan is the parser's transition on a byte that is not part of a
// printed character.
func nextScan(st scanState, c byte) scanState {
	switch st {
	case scanOSC, scanString:
		switch {
		case c == 0x1b:
			return scanEsc
		case c == 0x9c || c == 0x18 || c == 0x1a || c == 0x07 && st == scanOSC:
			return scanGround
		}
		return st
	}
	switch {
	case c == 0x1b:
		return scanEsc
	case c == 0x18 || c == 0x1a:
		return scanGround
	case c == 0x9b:
		return scanCSI
	case c == 0x9d:
		return scanOSC
	case c == 0x90 || c == 0x98 || c == 0x9e || c == 0x9f:
		return scanString
	case c >= 0x80:
		return scanGround
	case c < 0x20 || c == 0x7f: // executed or ignored inside sequences
		return st
	}
	switch st {
	case scanEsc:
		switch {
		case c < 0x30: // intermediates
			return scanEsc
		case c == '[':
			return scanCSI
		case c == ']':
			return scanOSC
		case c == 'P' || c == 'X' || c == '^' || c == '_':
			return scanString
		}
		return scanGround
	case scanCSI:
		if c >= 0x40 {
			return scanGround
		}
		return scanCSI
	}
	return scanGround
}

// feed writes a complete sequence or placeholder text.
func (s *printer) feed(seq string) {
	_, _ = s.emu.WriteString(seq)
}

// printASCII feeds one printable ASCII byte and records the cell it
// landed in.
func (s *printer) printASCII(c byte) {
	before := s.emu.CursorPosition()
	_, _ = s.emu.Write([]byte{c})
	s.lastX, s.lastY = landed(before, s.emu.CursorPosition())
	s.lastOK = true
}

// landed is the cell a one-column character went to, from the cursor
// before and after printing it: the column before the cursor, or the
// cursor's own cell when it stayed (the last column: a pending wrap, or
// autowrap off).
func landed(before, after uv.Position) (x, y int) {
	if after == before {
		return after.X, after.Y
	}
	return after.X - 1, after.Y
}

// printRune places one non-ASCII code point (see the top of this file).
func (s *printer) printRune(r rune) {
	w := widths.RuneWidth(r)
	if w == 0 {
		if !s.lastOK {
			return // nothing printed just before to join
		}
		if c := s.emu.CellAt(s.lastX, s.lastY); c != nil && c.Width > 0 {
			joined := *c
			joined.Content += string(r)
			s.emu.SetCell(s.lastX, s.lastY, &joined)
		}
		return
	}
	cols := s.emu.Width()
	if w > cols {
		w = 1
	}
	autowrap := !s.modes[ansi.ModeAutoWrap]
	if w == 2 && autowrap && s.emu.CursorPosition().X >= cols-1 {
		// It does not fit: wrap first (also ends a pending wrap).
		s.feed("\x1bD\r")
	}
	if s.modes[ansi.ModeInsertReplace] {
		s.feed([]string{"", "\x1b[@", "\x1b[2@"}[w])
	}
	before := s.emu.CursorPosition()
	s.feed("  "[:w])
	x, y := landed(before, s.emu.CursorPosition())
	if w == 2 {
		x, y = before.X, before.Y
	}
	cell := uv.Cell{Content: string(r), Width: w}
	if c := s.emu.CellAt(x, y); c != nil {
		cell.Style, cell.Link = c.Style, c.Link
	}
	s.emu.SetCell(x, y, &cell)
	s.lastX, s.lastY, s.lastOK = x, y, true
	s.lastRune = r
}
