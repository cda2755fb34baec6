package termtext

import "unicode/utf8"

// badSeqLen returns the length of the maximal ill-formed subsequence at the
// start of b, which becomes a single U+FFFD (the Unicode "maximal subpart"
// practice), and whether b ends inside what is still a valid prefix of a
// rune, so that more input could complete it. b must not start with a valid
// rune.
func badSeqLen(b []byte) (n int, truncated bool) {
	n = 1
	for k := 1; k <= len(b) && k < utf8.UTFMax; k++ {
		if utf8.FullRune(b[:k]) {
			break
		}
		n = k
	}
	return n, n == len(b) && !utf8.FullRune(b)
}

// incompleteTail returns how many bytes at the end of b are a valid but
// unfinished UTF-8 prefix, i.e. bytes a streaming caller must hold back.
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return 0
			}
			return len(b) - i
		}
	}
	return 0
}
