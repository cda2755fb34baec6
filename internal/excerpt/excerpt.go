// Package excerpt bounds how much of an agent's input an error message
// quotes. Errors that echo a value verbatim grow with the input (and grow
// again when escaped: one control byte becomes \x01, then \\x01 in JSON), so
// a multi-megabyte argument could turn into a reply the client refuses,
// which ends the connection and every session with it.
package excerpt

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Max is how many bytes of the value a quote keeps at most.
const Max = 64

// Q quotes s like %q when it is short; a longer s is cut to its first Max
// bytes (at a rune boundary) and followed by its length, e.g.
// "line of text\nline of…" (4860000 bytes).
func Q(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:cut(s, Max)]) + fmt.Sprintf("… (%d bytes)", len(s))
}

// Clip bounds a whole message to about max bytes by keeping its head and
// tail (where error text usually says what went wrong) around a note of what
// was cut.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	half := max / 2
	head := s[:cut(s, half)]
	tail := s[len(s)-tailCut(s, half):]
	return head + fmt.Sprintf(" […%d bytes cut…] ", len(s)-len(head)-len(tail)) + tail
}

// cut returns the largest n <= max such that s[:n] ends at a rune boundary.
func cut(s string, max int) int {
	n := max
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// tailCut returns the largest n <= max such that s[len(s)-n:] starts at a
// rune boundary.
func tailCut(s string, max int) int {
	n := max
	for n > 0 && !utf8.RuneStart(s[len(s)-n]) {
		n--
	}
	return n
}
