package screen

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Sequences the emulator gets wrong or ignores, closed with its handler
// hooks so programs render as xterm (ctlseqs) draws them.
//
// Some fixes need a cursor movement, which the emulator offers only as a
// sequence: such a handler writes the equivalent sequence the emulator
// does implement (ESC 8 for a cursor restore). That nested Write is safe:
// the parser calls a handler once the sequence is complete and sets its
// state (ground) only after the handler returns; until then it is still in
// the sequence's state, so nested bytes start with ESC (which leaves any
// state) and are complete sequences or C0 controls. TestScreen_DrawsAsXterm
// covers each, so an emulator upgrade that breaks this fails there.

func init() {
	// DEC special graphics: xterm draws y and z as less-than-or-equal and
	// greater-than-or-equal; the emulator's table has the slanted forms
	// (U+2A7D, U+2A7E), which nothing else draws. The table is an exported
	// variable, changed once here before any emulator reads it.
	vt.SpecialDrawing['y'] = "≤"
	vt.SpecialDrawing['z'] = "≥"
}

// hookSequences registers the handlers; called once by New.
func (s *Screen) hookSequences() {
	e := s.emu
	// DECSET/DECRST 47, 1047 and 1049. 47 (urwid, old curses) switches
	// screens as 1047 does. xterm's two screens share the cursor: entering
	// the alternate screen leaves it where it is (the emulator homes it)
	// and leaving by 47 or 1047 keeps where the program left it (the
	// emulator goes back to where it was on the main screen). Leaving by
	// 1049 restores the cursor its set saved, even when the main screen is
	// already showing (dialog ends with CSI 24;1 H CSI ? 1049 l); the
	// emulator restores nothing.
	for _, final := range []byte{'h', 'l'} {
		set := final == 'h'
		e.RegisterCsiHandler(ansi.Command('?', 0, final), func(params ansi.Params) bool {
			if s.switching {
				return false // our own nested sequence
			}
			special := false
			for _, p := range params {
				if n := p.Param(0); n == 47 || n == 1047 || n == 1049 {
					special = true
				}
			}
			if !special {
				return false
			}
			s.switching = true
			defer func() { s.switching = false }()
			for _, p := range params {
				n := p.Param(-1)
				pos, alt := e.CursorPosition(), e.IsAltScreen()
				switch {
				case n == 1049 && !set:
					s.nested("\x1b[?1047l\x1b8")
				case n == 47 || n == 1047 || n == 1049:
					seq := "\x1b[?1047" + string(final)
					if n == 1049 {
						seq = "\x1b[?1049h"
					}
					s.nested(seq)
					if alt != set { // switched: the cursor stays
						s.nested("\x1b[" + strconv.Itoa(pos.Y+1) + ";" + strconv.Itoa(pos.X+1) + "H")
					}
				case n >= 0:
					s.nested("\x1b[?" + strconv.Itoa(n) + string(final))
				}
			}
			return true
		})
	}
	// NEL: the next line's first column, scrolling at the bottom margin.
	e.RegisterEscHandler('E', func() bool {
		s.nested("\x1bD\r")
		return true
	})
	// SCORC (CSI u, no parameters) restores the cursor as DECRC does.
	e.RegisterCsiHandler('u', func(params ansi.Params) bool {
		if len(params) > 0 && params[0].Param(0) != 0 {
			return false
		}
		s.nested("\x1b8")
		return true
	})
	// ED 3 clears the scrollback only; the emulator blanks the screen too.
	// Fast-forward's replay relies on the emulator's version (see replay).
	// ED 1 erases up to the cursor; the emulator erases its whole row.
	// ED 2 leaves blanks of the current background colour, as xterm's
	// (back colour erase, which curses relies on); the emulator's ED 0
	// and ED 1 do, its ED 2 blanks without colour.
	e.RegisterCsiHandler('J', func(params ansi.Params) bool {
		if s.erasing {
			return false
		}
		switch n, _, _ := params.Param(0, 0); {
		case n == 3 && !s.replaying:
			e.ClearScrollback()
			return true
		case n == 1:
			s.eraseAbove()
			return true
		case n == 2:
			s.erasing = true
			s.nested("\x1b[2J\x1b[1J\x1b[0J")
			s.erasing = false
			return true
		}
		return false
	})
	s.hookCharsets()
	// ICH and DCH inside wide-character text (see cells.go).
	e.RegisterCsiHandler('@', func(params ansi.Params) bool {
		n, _, _ := params.Param(0, 1)
		return s.insertCells(max(n, 1))
	})
	e.RegisterCsiHandler('P', func(params ansi.Params) bool {
		n, _, _ := params.Param(0, 1)
		return s.deleteCells(max(n, 1))
	})
	// REP repeats the last graphic character; for one agentty placed
	// (non-ASCII, see print.go) the emulator would repeat its placeholder.
	e.RegisterCsiHandler('b', func(params ansi.Params) bool {
		if s.pr.lastRune == 0 {
			return false
		}
		n, _, _ := params.Param(0, 1)
		r := s.pr.lastRune
		// The parser is still in the CSI state while a handler runs and
		// would take the placeholders as intermediates: an ST (a no-op)
		// takes it to the ground state first.
		s.nested("\x1b\\")
		for range min(max(n, 1), s.emu.Width()*s.emu.Height()) {
			s.pr.printRune(r)
		}
		return true
	})
}

// nested feeds the emulator a complete sequence from inside a handler.
func (s *Screen) nested(seq string) {
	_, _ = s.emu.WriteString(seq)
}
