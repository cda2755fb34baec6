package screen

import (
	"bytes"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Fast-forward over scrolling text.
//
// The emulator scrolls by moving every cell of the screen up one row, so a
// build log or `cat bigfile` costs a full-screen copy per line: a few MB/s
// where the PTY delivers over 100 MB/s. But when output is plain text
// (printable characters, \r\n, \t, \b, BEL, and only the colour (SGR) and
// erase-in-line (EL) sequences, with no background colour: see penBg),
// what a full rendering leaves behind is
// determined by its last lines alone: the last rows+1 lines fill the
// screen, the scrollback lines before them fill the scrollback, and
// everything earlier is gone whatever it was. So a long plain slice
// p = head | dropped | history | tail is rendered as:
//
//   - head, the first line, as is: it finishes the line the cursor is on,
//     after which the cursor is at column 0 in the ground state;
//   - dropped: nothing;
//   - history, the last `scrollback` lines before tail: drawn on a scratch
//     emulator one row high, and the rows that scrolled off it pushed into
//     the scrollback (replacing all of it: it holds at most that many);
//   - tail, the last rows+1 lines and what follows them: drawn from the
//     top-left of a cleared screen, so it scrolls once or twice instead of
//     once per line, and ends exactly as a full rendering ends.
//
// This is valid only when nothing skipped changes state that outlives its
// lines, and every kept line starts where it would have:
//   - the emulator is on the main screen with the full scroll region, no
//     left/right margins, autowrap on, insert and newline modes off
//     (tracked by hooks, see track and setMode), re-checked after head;
//   - no escape sequence is open after head (pendingEsc, re-checked after
//     head: one the last write left open is finished there or stops the
//     skip), and head's last sequence is complete;
//   - dropped+history and the first rows+1 lines of tail are plain (so the
//     screen is full of plain lines where anything else starts); each cut
//     sits right after a "\r\n".
//
// The text, the visible rows' colours, the scrollback text and the cursor
// are identical to a full rendering (a property test checks this); the
// scrollback's colours may differ (history starts with a reset pen), and
// tab stops set by the program are not applied to history lines.

// fastForward feeds p to the emulator, fast-forwarding where it can.
// Called under mu.
func (s *Screen) fastForward(p []byte) {
	// A sequence left open by the last write (split by a read or a chunk
	// boundary) is finished by head, after which canSkip checks again.
	if s.canSkipModes() {
		if h := bytes.Index(p, crlf); h >= 0 && escComplete(p[:h+2]) {
			head, rest := p[:h+2], p[h+2:]
			if hist, tail, ok := s.split(rest); ok {
				s.write(head)
				// The first line may have changed the state (a scroll
				// region, the alternate screen).
				if s.canSkip() {
					s.skipped += int64(hist)
					s.replay(rest[hist:tail])
					// The tail is drawn with the pen the skipped lines left.
					s.write(penSGR(rest[:tail]))
					rest = rest[tail:]
				}
				p = rest
			}
		}
	}
	s.write(p)
}

func (s *Screen) canSkip() bool {
	return !s.pendingEsc && s.canSkipModes()
}

// canSkipModes is canSkip but for an escape sequence left open.
func (s *Screen) canSkipModes() bool {
	return !s.noFastForward && !s.margins && !s.lrMargins && len(s.oddModes) == 0 && !s.emu.IsAltScreen() && !s.penBg
}

// Colours. Skipped lines change nothing but the pen, whose SGR sequences
// are fed again before the tail (penSGR). A background colour is another
// matter: a line that scrolls in is blank in the pen's background (back
// colour erase), and the tail, drawn on a cleared screen, would not be.
// So output is plain only while no background colour is set: penBg says
// whether the pen may have one (conservatively: a restored cursor may
// bring one back), and an SGR that may set one ends plain text.

// sgrSetsBg reports whether an SGR's parameters may set a background
// colour (any number that names one counts, even an index after 38;5).
func sgrSetsBg(params []byte) bool {
	n, digits := 0, false
	for i := 0; i <= len(params); i++ {
		if i < len(params) && params[i] >= '0' && params[i] <= '9' {
			n, digits = n*10+int(params[i]-'0'), true
			continue
		}
		if digits && (n >= 40 && n <= 48 || n >= 100 && n <= 107) {
			return true
		}
		n, digits = 0, false
	}
	return false
}

// notePen follows an SGR's effect on penBg. After a 38, 48 or 58 colour
// the numbers are colour values, so only a background is believed.
func (s *Screen) notePen(params ansi.Params) {
	if len(params) == 0 {
		s.penBg = false
		return
	}
	ext := false
	for i := range params {
		p := params[i].Param(0)
		switch {
		case p >= 40 && p <= 48 || p >= 100 && p <= 107:
			s.penBg = true
		case ext:
		case p == 0 || p == 49:
			s.penBg = false
		}
		if p == 38 || p == 48 || p == 58 {
			ext = true
		}
	}
}

// penSGR is the SGR sequences in p from the last one that starts with a
// reset: fed in order, they leave the pen as all of p's would.
func penSGR(p []byte) []byte {
	var seqs [][]byte
	for i := 0; i < len(p); i++ {
		j := bytes.IndexByte(p[i:], 0x1b)
		if j < 0 {
			break
		}
		i += j
		n := csiLen(p[i:])
		if n == 0 || p[i+n-1] != 'm' {
			continue
		}
		seq := p[i : i+n]
		params := seq[2 : n-1]
		if j := bytes.IndexByte(params, ';'); j >= 0 {
			params = params[:j]
		}
		if len(bytes.Trim(params, "0")) == 0 { // "", "0", "0;...": a reset first
			seqs = seqs[:0]
		}
		seqs = append(seqs, seq)
		i += n - 1
	}
	return bytes.Join(seqs, nil)
}

// split finds, in p (which starts at column 0 in the ground state), where
// the history lines and the tail start; ok is false when p is too short or
// not plain up to the tail.
func (s *Screen) split(p []byte) (hist, tail int, ok bool) {
	lineStarts := func(end, n int) (int, bool) { // after the n-th "\r\n" back from end
		for range n {
			i := bytes.LastIndex(p[:end], crlf)
			if i < 0 {
				return 0, false
			}
			end = i
		}
		if i := bytes.LastIndex(p[:end], crlf); i >= 0 {
			return i + len(crlf), true
		}
		return 0, false // the history must not reach back to p's start
	}
	// The screen must be full of plain lines where anything else (cursor
	// movement, a mode change) starts, so count back from there.
	tail, ok = lineStarts(plainLen(p), s.emu.Height()+1)
	if !ok {
		return 0, 0, false
	}
	hist, ok = lineStarts(tail, s.scrollback)
	if !ok {
		return 0, 0, false
	}
	return hist, tail, true
}

// replay stands for rendering history lines that scroll off: it draws them
// on the scratch emulator, makes the rows that scrolled off it the
// scrollback, and clears the screen with the cursor at the top-left for the
// tail. The scratch is one row high, so its scrolling copies one row, not
// a screen.
func (s *Screen) replay(history []byte) {
	cols := s.emu.Width()
	if s.scratch == nil || s.scratch.Width() != cols {
		s.scratch = vt.NewEmulator(cols, 1)
		s.scratch.SetScrollbackSize(s.scrollback)
		s.scratchPr = printer{emu: s.scratch}
	}
	sc := s.scratch
	_, _ = sc.Write([]byte("\x1b[0m\x1b[3J\x1b[H")) // reset pen, clear screen and scrollback, home
	s.scratchPr.write(history)
	s.replaying = true // the emulator's ED 3 blanks the screen too, as wanted here
	_, _ = s.emu.Write([]byte("\x1b[3J\x1b[H"))
	s.replaying = false
	sb := s.emu.Scrollback()
	for _, line := range sc.Scrollback().Lines() {
		sb.Push(line)
	}
}

var crlf = []byte("\r\n")

// plainLen is the length of the prefix of p that holds only text, \r, \n,
// \t, \b, BEL and complete SGR or EL sequences.
func plainLen(p []byte) int {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 0x20 && c != 0x7f:
		case c == '\r' || c == '\n' || c == '\t' || c == '\b' || c == '\a':
		case c == 0x1b:
			n := csiLen(p[i:])
			if n == 0 {
				return i
			}
			if f := p[i+n-1]; f != 'm' && f != 'K' || f == 'm' && sgrSetsBg(p[i+2:i+n-1]) {
				return i
			}
			i += n - 1
		default:
			return i
		}
	}
	return len(p)
}

// csiLen is the length of the complete CSI sequence with numeric
// parameters at the start of p, or 0.
func csiLen(p []byte) int {
	if len(p) < 3 || p[0] != 0x1b || p[1] != '[' {
		return 0
	}
	for i := 2; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// escComplete reports whether the last escape sequence in p (if any) is
// complete, so a parser fed p ends in its ground state. An ESC aborts any
// sequence before it, so only the last one matters.
func escComplete(p []byte) bool {
	i := bytes.LastIndexByte(p, 0x1b)
	if i < 0 {
		return true
	}
	rest := p[i+1:]
	if len(rest) == 0 {
		return false
	}
	switch rest[0] {
	case '[': // CSI: parameters and intermediates, then a final byte; C0
		// controls inside are executed and the sequence goes on.
		for _, c := range rest[1:] {
			if c >= 0x40 && c <= 0x7e {
				return true
			}
			if c > 0x7e {
				return false
			}
		}
		return false
	case ']': // OSC ends with BEL here (an ST would be a later ESC).
		return bytes.IndexByte(rest, 0x07) >= 0
	case 'P', '_', '^', 'X': // strings that only ST (a later ESC) ends
		return false
	}
	// ESC, intermediates, final byte (ESC 7, ESC ( B, ESC \ ...).
	for _, c := range rest {
		if c >= 0x30 && c <= 0x7e {
			return true
		}
		if c < 0x20 || c > 0x2f {
			return false
		}
	}
	return false
}

// track registers hooks that keep the state skippable depends on. The
// handlers return false so the emulator's own handler runs too.
func (s *Screen) track() {
	s.emu.RegisterCsiHandler('r', func(params ansi.Params) bool {
		top, _, _ := params.Param(0, 1)
		bottom, _, _ := params.Param(1, 0)
		s.margins = top > 1 || (bottom > 0 && bottom < s.emu.Height())
		return false
	})
	s.emu.RegisterCsiHandler('m', func(params ansi.Params) bool {
		s.notePen(params)
		return false
	})
	// Saving and restoring the cursor saves and restores the pen.
	save := func() bool { s.savedBg = s.savedBg || s.penBg; return false }
	restore := func() bool { s.penBg = s.savedBg; return false }
	s.emu.RegisterEscHandler('7', save)
	s.emu.RegisterCsiHandler('s', func(ansi.Params) bool { return save() })
	s.emu.RegisterEscHandler('8', restore)      // SCORC (CSI u) feeds ESC 8
	s.emu.RegisterEscHandler('c', func() bool { // full reset: modes to defaults
		s.penBg, s.savedBg = false, false
		s.margins, s.lrMargins, s.appCursor = false, false, false
		clear(s.oddModes)
		return false
	})
}
