package screen

import (
	"bytes"

	"github.com/charmbracelet/x/ansi"
)

// Fast-forward over scrolling text.
//
// The emulator scrolls by moving every cell of the screen up one row, so a
// build log or `cat bigfile` costs a full-screen copy per line: a few MB/s
// where the PTY delivers about 100 MB/s. But when the output is plain text
// (printable characters, \r\n, \t, \b, BEL, and only the colour (SGR) and
// erase-in-line (EL) sequences), only its last lines can still be on the
// screen or in the kept scrollback; everything before them is scrolled off
// whatever it was. Write therefore drops such a prefix and renders the
// rest, which holds the last 2*rows+scrollback lines: the first rows of it
// push the old screen out, the others are exactly what a full rendering
// leaves visible and in scrollback.
//
// The part may be dropped only when nothing in it changes state that
// outlives its lines, and when every kept line starts where it would have:
//   - the emulator is on the main screen with the full scroll region and no
//     left/right margins (tracked by hooks, see track);
//   - the parser is in its ground state: no escape sequence is open at the
//     end of what was fed before (pendingEsc);
//   - the first line of p is fed as is, so the dropped part starts at
//     column 0, and the cut sits right after a "\r\n", so the first kept
//     line starts at column 0 in both renderings.
// The text is identical; only colours of the kept lines may differ (the
// pen state from the dropped SGR sequences), which a text snapshot does not
// show.

// fastForward feeds p to the emulator, leaving out what skippable allows.
// Called under mu.
func (s *Screen) fastForward(p []byte) {
	if s.canSkip() {
		// The first line finishes whatever line the cursor is on; after
		// its "\r\n" the cursor is at column 0.
		if h := bytes.Index(p, crlf); h >= 0 && escComplete(p[:h+2]) {
			head, rest := p[:h+2], p[h+2:]
			if n := s.skippable(rest); n > 0 {
				s.write(head)
				// The first line may have changed the state (a scroll
				// region, the alternate screen).
				if s.canSkip() {
					s.skipped += int64(n)
					rest = rest[n:]
				}
				p = rest
			}
		}
	}
	s.write(p)
}

func (s *Screen) canSkip() bool {
	return !s.noFastForward && !s.pendingEsc && !s.margins && !s.lrMargins && !s.emu.IsAltScreen()
}

// write feeds the emulator and keeps pendingEsc.
func (s *Screen) write(p []byte) {
	_, _ = s.emu.Write(p)
	if i := bytes.LastIndexByte(p, 0x1b); i >= 0 {
		s.pendingEsc = !escComplete(p[i:])
	}
}

// skippable returns how many leading bytes of p, which starts at column 0
// in the ground state, can be left out: all but the last
// 2*rows+scrollback lines, if they are plain.
func (s *Screen) skippable(p []byte) int {
	keep := 2*s.emu.Height() + s.scrollback
	cut := len(p)
	for range keep + 1 {
		i := bytes.LastIndex(p[:cut], crlf)
		if i < 0 {
			return 0
		}
		cut = i
	}
	cut += len(crlf)
	if !plain(p[:cut]) {
		return 0
	}
	return cut
}

var crlf = []byte("\r\n")

// plain reports whether p holds only text, \r, \n, \t, \b, BEL and complete
// SGR or EL sequences.
func plain(p []byte) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 0x20 && c != 0x7f:
		case c == '\r' || c == '\n' || c == '\t' || c == '\b' || c == '\a':
		case c == 0x1b:
			n := csiLen(p[i:])
			if n == 0 {
				return false
			}
			if f := p[i+n-1]; f != 'm' && f != 'K' {
				return false
			}
			i += n - 1
		default:
			return false
		}
	}
	return true
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
	s.emu.RegisterEscHandler('c', func() bool { // full reset
		s.margins = false
		return false
	})
}
