package screen

import (
	"github.com/charmbracelet/x/ansi"
)

// SO and SI (shift out, shift in) switch the characters shown between the
// G0 and G1 sets (ESC ( and ESC ) designate them; programs draw lines with
// ESC ) 0 and SO ... SI). The emulator keeps both designations but ignores
// SO and SI, so it always shows G0. agentty keeps the designations and the
// shift itself and makes the emulator's G0 the set in effect: on SO it
// designates G1's set as G0, on SI G0's again, and while shifted a program's
// own G0 designation is only recorded.

func (s *Screen) hookCharsets() {
	e := s.emu
	for _, f := range []byte{'A', 'B', '0'} {
		e.RegisterEscHandler(ansi.Command(0, '(', f), func() bool {
			if s.pr.designating {
				return false
			}
			s.pr.g0 = f
			return s.pr.shifted // while shifted the emulator's G0 shows G1
		})
		e.RegisterEscHandler(ansi.Command(0, ')', f), func() bool {
			s.pr.g1 = f
			if s.pr.shifted {
				s.pr.designate(f)
			}
			return false
		})
	}
	e.RegisterEscHandler('c', func() bool { // full reset
		s.pr.g0, s.pr.g1, s.pr.shifted = 0, 0, false
		return false
	})
}

// shift applies SO (out) or SI.
func (s *printer) shift(out bool) {
	s.shifted = out
	if out {
		s.designate(s.g1)
	} else {
		s.designate(s.g0)
	}
}

// designate makes set the emulator's G0.
func (s *printer) designate(set byte) {
	if set == 0 {
		set = 'B'
	}
	s.designating = true
	s.feed("\x1b(" + string(set))
	s.designating = false
}
