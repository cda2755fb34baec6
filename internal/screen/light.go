package screen

import (
	"bytes"
	"image/color"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// The light responder: what a lazy Screen runs until it builds its
// emulator (see lazy.go).
//
// It parses the output with the emulator's own parser (ansi.Parser, so a
// sequence is recognised exactly where the emulator recognises it) and
// keeps only what must be known without the emulator: the answers to
// terminal queries, the cursor keys mode, and the cursor position while it
// is trivially known. Every answer the emulator gives is listed here (the
// emulator writes answers in these places only: DA1, DA2, DSR 5 and 6,
// DECXCPR, DECRQM, OSC 10/11/12 queries, in-band resize reports); the
// light responder gives the same bytes, or says the emulator is needed.
//
// The emulator is needed (need is set) when the output does something the
// light responder cannot answer exactly or that the tools report without
// reading the screen: the alternate screen (TUI), a cursor position report
// while the position is not known, a mode report, in-band resize, a colour
// change, a full or soft reset, a mode that changes how later output moves
// the cursor (autowrap, origin, margins, insert, newline, tab stops), or a
// C0 control inside a sequence (the print path reorders it, print.go).
// Anything else that may move the cursor in a way not modelled here only
// makes the position unknown until an absolute move (CUP) fixes it again.
type light struct {
	p          *ansi.Parser
	rows, cols int

	// The cursor, as the emulator keeps it, while known: x and y 0-based,
	// phantom is the emulator's pending wrap (x stays in the last column).
	x, y    int
	phantom bool
	known   bool

	appCursor bool // DECCKM, as the Screen's mode callback keeps it

	need    bool     // the emulator must be built: see above
	answers [][]byte // answers found in the current write, in order
}

// lightData bounds the string data the light parser keeps: an OSC colour
// query is a few bytes; a longer colour string makes the emulator needed.
const lightData = 64

// Answers the emulator gives with its default colours (vt: white on
// black, a white cursor), in its own format.
var (
	answerDA1 = []byte(ansi.PrimaryDeviceAttributes(62, 1, 6, 22))
	answerDA2 = []byte(ansi.SecondaryDeviceAttributes(1, 10, 0))
	answerDSR = []byte(ansi.DeviceStatusReport(ansi.DECStatusReport(0)))
	answerFg  = []byte(ansi.SetForegroundColor(ansi.XRGBColor{Color: color.White}.String()))
	answerBg  = []byte(ansi.SetBackgroundColor(ansi.XRGBColor{Color: color.Black}.String()))
	answerCur = []byte(ansi.SetCursorColor(ansi.XRGBColor{Color: color.White}.String()))
)

func newLight(rows, cols int) *light {
	l := &light{rows: rows, cols: cols, known: true}
	l.p = ansi.NewParser()
	l.p.SetParamsSize(parser.MaxParamsSize)
	l.p.SetDataSize(lightData)
	l.p.SetHandler(ansi.Handler{
		Print:     l.print,
		Execute:   l.execute,
		HandleCsi: l.csi,
		HandleEsc: l.esc,
		HandleOsc: l.osc,
	})
	return l
}

// write parses p; it stops early once the emulator is needed.
func (l *light) write(p []byte) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		if l.p.State() == parser.GroundState && b >= 0x20 && b < 0x7f {
			// Text, the bulk of output, without the parser: in the ground
			// state the parser prints it and stays there.
			j := i + 1
			for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
				j++
			}
			if l.known {
				for range j - i {
					l.print(' ')
				}
			}
			i = j - 1
			continue
		}
		l.p.Advance(b)
		if l.need {
			return
		}
	}
}

// resize follows a size change; the emulator's clamping of a pending wrap
// is not modelled.
func (l *light) resize(rows, cols int) {
	l.rows, l.cols = rows, cols
	l.known = false
}

func (l *light) answer(b []byte) { l.answers = append(l.answers, b) }

func (l *light) print(r rune) {
	if r < 0x20 || r >= 0x7f {
		l.known = false // widths of other characters are the print path's business
		return
	}
	if l.phantom {
		l.index()
		l.x = 0
	}
	l.phantom = l.x >= l.cols-1
	if !l.phantom {
		l.x++
	}
}

// index moves down a line, scrolling at the bottom (no margins here).
func (l *light) index() {
	if l.y < l.rows-1 {
		l.y++
	}
	l.phantom = false
}

func (l *light) execute(b byte) {
	if l.p.State() != parser.GroundState {
		l.need = true // a control inside a sequence: see printer.write
		return
	}
	switch b {
	case '\a', 0x0e, 0x0f: // BEL; SO and SI only change which glyphs print
	case '\r':
		l.x, l.phantom = 0, false
	case '\n', '\v', '\f':
		l.index()
	case '\b':
		l.x, l.phantom = max(0, l.x-1), false
	case '\t':
		l.x = min(l.cols-1, (l.x/8+1)*8) // default tab stops; the pending wrap stays
	default:
		l.known = false
	}
}

func (l *light) csi(cmd ansi.Cmd, params ansi.Params) {
	switch int(cmd) {
	case 'm': // SGR
		return
	case 'K', 'J', '@', 'P', 'X': // erase, insert, delete: the cursor stays
		if l.phantom {
			l.known = false // some of them end a pending wrap
		}
		return
	case 'H', 'f': // CUP, HVP
		row, _, _ := params.Param(0, 1)
		col, _, _ := params.Param(1, 1)
		l.x, l.y = min(l.cols-1, max(col, 1)-1), min(l.rows-1, max(row, 1)-1)
		l.phantom, l.known = false, true
		return
	case 'A', 'B', 'C', 'D': // CUU, CUD, CUF, CUB
		n, _, _ := params.Param(0, 1)
		switch cmd {
		case 'A':
			l.y = max(0, l.y-n)
		case 'B':
			l.y = min(l.rows-1, l.y+n)
		case 'C':
			l.x = min(l.cols-1, l.x+n)
		case 'D':
			l.x = max(0, l.x-n)
		}
		l.phantom = false
		return
	case 'G': // CHA
		n, _, _ := params.Param(0, 1)
		l.x, l.phantom = min(l.cols-1, max(n, 1)-1), false
		return
	case 'd': // VPA
		n, _, _ := params.Param(0, 1)
		l.y, l.phantom = min(l.rows-1, max(n, 1)-1), false
		return
	case 'c': // DA1
		if n, _, _ := params.Param(0, 0); n == 0 {
			l.answer(answerDA1)
		}
		return
	case ansi.Command('>', 0, 'c'): // DA2
		if n, _, _ := params.Param(0, 0); n == 0 {
			l.answer(answerDA2)
		}
		return
	case 'n', ansi.Command('?', 0, 'n'): // DSR, DECXCPR
		n, _, ok := params.Param(0, 1)
		switch {
		case !ok || n == 0:
		case n == 5 && cmd == 'n':
			l.answer(answerDSR)
		case n == 6 && !l.known:
			l.need = true
		case n == 6 && cmd == 'n':
			l.answer([]byte(ansi.CursorPositionReport(l.y+1, l.x+1)))
		case n == 6:
			l.answer([]byte(ansi.ExtendedCursorPositionReport(l.y+1, l.x+1, 0)))
		}
		return
	case ansi.Command('?', 0, 'h'), ansi.Command('?', 0, 'l'):
		l.decModes(params, cmd.Final() == 'h')
		return
	case 'h', 'l', 'r', 's', 'u', 'g', 'W', ansi.Command(0, '$', 'p'), ansi.Command('?', '$', 'p'), ansi.Command(0, '!', 'p'):
		// ANSI modes (insert, newline), margins, saved cursor, tab stops,
		// mode reports, soft reset.
		l.need = true
		return
	}
	l.known = false
}

// decModes follows DECSET and DECRST.
func (l *light) decModes(params ansi.Params, set bool) {
	for _, p := range params {
		switch n := p.Param(-1); n {
		case 1:
			l.appCursor = set
		case 12, 25, 9, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1015, 1016, 2004, 2026, 2027:
			// blinking, cursor shown, mouse and focus reports, bracketed
			// paste, synchronized output: the cursor stays, nothing answers
		default:
			l.need = true
		}
	}
}

func (l *light) esc(cmd ansi.Cmd) {
	switch int(cmd) {
	case '\\', '=', '>': // ST; keypad modes
		return
	case ansi.Command(0, '(', 'B'), ansi.Command(0, '(', '0'), ansi.Command(0, '(', 'A'),
		ansi.Command(0, ')', 'B'), ansi.Command(0, ')', '0'), ansi.Command(0, ')', 'A'):
		return // character sets: glyphs change, widths do not
	case 'c', 'H': // full reset, tab stop set
		l.need = true
		return
	}
	l.known = false
}

func (l *light) osc(cmd int, data []byte) {
	switch cmd {
	case 10, 11, 12, 110, 111, 112:
	default:
		return // titles, links, the working directory: nothing to answer
	}
	parts := bytes.Split(data, []byte{';'})
	if len(data) >= lightData || len(parts) != 2 || string(parts[1]) != "?" {
		l.need = true // a colour set or reset, or more than the parser kept
		return
	}
	switch cmd {
	case 10:
		l.answer(answerFg)
	case 11:
		l.answer(answerBg)
	case 12:
		l.answer(answerCur)
	}
}
