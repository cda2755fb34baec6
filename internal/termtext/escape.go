package termtext

import (
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// parserPool recycles parsers for reading CSI parameters; Clean is called
// for every read of every process, so it should not allocate one each time.
var parserPool = sync.Pool{New: func() any {
	p := new(ansi.Parser)
	p.SetParamsSize(parser.MaxParamsSize)
	// Only CSI parameters are read; string payloads are never collected.
	p.SetDataSize(1)
	return p
}}

// escape consumes the escape sequence at the start of b (b[0] is ESC) and
// applies its effect on l. incomplete reports that b ends before the sequence
// does; n is then len(b).
func (l *line) escape(b []byte) (n int, incomplete bool) {
	if len(b) < 2 {
		return len(b), true
	}
	switch b[1] {
	case ']', 'P', 'X', '^', '_':
		return stringSeqLen(b)
	}
	seq, _, n, state := ansi.DecodeSequence(b, ansi.NormalState, nil)
	if state != ansi.NormalState {
		return len(b), true
	}
	if n < 1 {
		n = 1 // cannot happen for an ESC start, but never loop forever
	}
	if len(seq) >= 3 && seq[1] == '[' {
		l.csi(seq)
	}
	return n, false
}

// stringSeqLen measures an OSC, DCS, SOS, PM or APC string (b starts with
// ESC and one of ] P X ^ _). It is scanned here rather than by
// ansi.DecodeSequence because that also ends strings at the 8-bit ST byte
// 0x9c, which in UTF-8 output is a continuation byte: a window title such as
// "朝" (e6 9c 9d) would be cut short and leak its tail as text.
func stringSeqLen(b []byte) (n int, incomplete bool) {
	osc := b[1] == ']'
	for i := 2; i < len(b); i++ {
		switch b[i] {
		case ansi.BEL:
			// xterm ends OSC with BEL too; other strings carry it as data.
			if osc {
				return i + 1, false
			}
		case ansi.CAN, ansi.SUB:
			// Cancels the string; the control itself is dropped later.
			return i, false
		case ansi.ESC:
			if i+1 == len(b) {
				return len(b), true
			}
			if b[i+1] == '\\' {
				return i + 2, false
			}
			// Any other ESC aborts the string and starts a new sequence.
			return i, false
		}
	}
	return len(b), true
}

// csi applies the line-local cursor motions among CSI sequences; all others
// (SGR colours, modes, scrolling, ...) are simply dropped.
func (l *line) csi(seq []byte) {
	final := seq[len(seq)-1]
	switch final {
	case 'K', 'G', '`', 'C', 'a', 'D', 'P', 'X', '@':
	default:
		return
	}
	// Only plain numeric parameters: a private prefix (ESC[?K is DECSEL) or
	// an intermediate byte makes it a different command. The count also
	// keeps within the parser's fixed parameter buffer, which
	// ansi.DecodeSequence indexes without a bounds check.
	seps := 0
	for _, c := range seq[2 : len(seq)-1] {
		switch {
		case c >= '0' && c <= '9':
		case c == ';' || c == ':':
			seps++
		default:
			return
		}
	}
	if seps >= parser.MaxParamsSize-1 {
		return
	}
	p := parserPool.Get().(*ansi.Parser)
	defer parserPool.Put(p)
	ansi.DecodeSequence(seq, ansi.NormalState, p)

	// ECMA-48: a missing or zero count means 1.
	// The upper clamp keeps cursor arithmetic far from int overflow; motion
	// is bounded by maxPadCol anyway.
	count, _ := p.Param(0, 1)
	count = max(1, min(count, 1<<20))
	switch final {
	case 'K':
		mode, _ := p.Param(0, 0)
		l.eraseInLine(mode)
	case 'G', '`':
		l.moveTo(count - 1)
	case 'C', 'a':
		l.moveBy(count)
	case 'D':
		l.moveBy(-count)
	case 'P':
		l.deleteChars(count)
	case 'X':
		l.blank(l.col, l.col+count)
	case '@':
		l.insertChars(count)
	}
}
