package termtext

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// plainASCII marks the ASCII bytes that need no interpretation: printable
// characters, \n and \t.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['\n'] = true
	t['\t'] = true
	return t
}()

// cleanFast handles the common case of output that is already plain text
// (valid UTF-8 with no ESC, no \b, no other controls and \r only in CRLF),
// where Clean reduces to CRLF -> LF. ok is false when the full interpreter is
// needed. Output can be hundreds of MB, so this is the hot path.
func cleanFast(raw []byte, final bool) (text string, consumed int, ok bool) {
	end := len(raw)
	hasCR := false
	for i := 0; i < end; {
		c := raw[i]
		if c < utf8.RuneSelf {
			if plainASCII[c] {
				i++
				continue
			}
			if c != '\r' {
				return "", 0, false
			}
			if i+1 < end {
				if raw[i+1] != '\n' {
					return "", 0, false
				}
				hasCR = true
				i += 2
				continue
			}
			// A trailing \r: with more input it may pair with \n; at the
			// end it moves the cursor without changing what is visible.
			end--
			break
		}
		r, size := utf8.DecodeRune(raw[i:end])
		if r == utf8.RuneError && size == 1 {
			// Only an unfinished character at the very end is held back;
			// anything else ill-formed is the slow path's job.
			if _, truncated := badSeqLen(raw[i:end]); final || !truncated {
				return "", 0, false
			}
			end = i
			break
		}
		i += size
	}
	consumed = end
	if final {
		consumed = len(raw)
	}
	if !hasCR {
		return string(raw[:end]), consumed, true
	}
	return dropCR(raw[:end]), consumed, true
}

// dropCR turns every CRLF in b into LF; b has no other \r.
func dropCR(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for {
		j := bytes.IndexByte(b, '\r')
		if j < 0 {
			sb.Write(b)
			return sb.String()
		}
		sb.Write(b[:j])
		b = b[j+1:]
	}
}
