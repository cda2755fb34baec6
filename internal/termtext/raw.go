package termtext

import (
	"strings"
	"unicode/utf8"
)

// Raw returns raw unchanged except that invalid UTF-8 becomes U+FFFD, so the
// result is always safe to put in JSON. When final is false an incomplete
// trailing UTF-8 character is held back (consumed excludes it) so that a
// character split between two reads comes out whole. It serves agents that
// asked for unstripped output.
func Raw(raw []byte, final bool) (text string, consumed int) {
	end := len(raw)
	if !final {
		end -= incompleteTail(raw)
	}
	if utf8.Valid(raw[:end]) {
		return string(raw[:end]), end
	}

	var sb strings.Builder
	sb.Grow(len(raw) + 2)
	i := 0
	for i < len(raw) {
		// Copy the valid run in one go; only ill-formed bytes need care.
		j := i
		for j < len(raw) {
			if raw[j] < utf8.RuneSelf {
				j++
				continue
			}
			r, size := utf8.DecodeRune(raw[j:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			j += size
		}
		sb.Write(raw[i:j])
		i = j
		if i == len(raw) {
			break
		}
		n, truncated := badSeqLen(raw[i:])
		if truncated && !final {
			break
		}
		sb.WriteRune(utf8.RuneError)
		i += n
	}
	return sb.String(), i
}
