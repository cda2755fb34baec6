package termtext

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// linePool recycles line buffers between calls.
var linePool = sync.Pool{New: func() any { return new(line) }}

// Clean converts raw terminal output into plain text. It drops escape
// sequences (CSI, OSC with BEL or ST terminator, DCS/APC/PM/SOS strings,
// two-byte ESC sequences like charset selection ESC ( B, keypad modes ESC = /
// ESC >), drops C0 controls except \n and \t, turns CRLF into LF, and applies
// the line-local cursor motions a human would see so progress redraws
// collapse to their final text: \r returns to column 0 and later text
// overwrites ("10%\r20%\r100%\n" -> "100%\n"; "hello\rab" -> "abllo"), \b
// moves left one cell, CSI K (0/1/2) erases to end/start/all of the line,
// CSI n G sets the column, CSI n C / CSI n D move right/left (padding with
// spaces when text is written past the end). CSI P, X and @ (delete, erase,
// insert characters) are applied too, as line editors use them. Invalid UTF-8
// becomes U+FFFD so the result is always valid UTF-8.
//
// It returns the text and how many bytes of raw it consumed. When final is
// false, an incomplete escape sequence, an incomplete UTF-8 character or a
// lone \r at the end of raw (it may be the first half of CRLF) is not
// consumed, so the caller keeps those bytes for its next call and a split
// sequence never leaks; when final is true everything is consumed (an
// incomplete escape tail is dropped, a truncated UTF-8 char becomes U+FFFD).
// A line that is not finished by \n at the end of raw is emitted as it
// currently stands, so prompts like ">>> " appear. Line state is not carried
// between calls: a \r only overwrites text from the same call. Lines are
// modelled as on a terminal 2048 columns wide: a longer line wraps, and \r
// then returns to the start of its last row.
func Clean(raw []byte, final bool) (text string, consumed int) {
	if text, consumed, ok := cleanFast(raw, final); ok {
		return text, consumed
	}
	return cleanSlow(raw, final)
}

// cleanSlow is the full interpreter behind Clean.
func cleanSlow(raw []byte, final bool) (string, int) {
	l := linePool.Get().(*line)
	defer func() {
		l.reset()
		l.out = nil
		linePool.Put(l)
	}()
	l.reset()

	var sb strings.Builder
	sb.Grow(len(raw))
	l.out = &sb
	i := 0
loop:
	for i < len(raw) {
		c := raw[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			l.put(rune(c), 1)
			i++
		case c == '\n':
			l.flush()
			sb.WriteByte('\n')
			l.reset()
			i++
		case c == '\r':
			if i+1 == len(raw) && !final {
				break loop
			}
			l.col = 0
			i++
		case c == '\t':
			// Kept as one cell: the agent wants the tab, not the spaces.
			l.put('\t', 1)
			i++
		case c == '\b':
			l.col = max(0, l.col-1)
			i++
		case c == 0x1b:
			n, incomplete := l.escape(raw[i:])
			if incomplete && !final {
				break loop
			}
			i += n
		case c < utf8.RuneSelf:
			// Other C0 controls and DEL do not print.
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				n, truncated := badSeqLen(raw[i:])
				if truncated && !final {
					break loop
				}
				size = n
			}
			switch w := runeWidth(r); w {
			case 0:
				l.putZeroWidth(r)
			default:
				l.put(r, w)
			}
			i += size
		}
	}
	l.flush()
	return sb.String(), i
}
