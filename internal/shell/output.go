package shell

import (
	"fmt"
	"strings"
)

// rawCap is how much raw output is cleaned whole; beyond it only a head and
// a tail of rawCap/2 each are read, since the result is cut anyway.
const rawCap = 8 << 20

// fill puts the clean text of raw output [from, end) into res, cut to the
// limits keeping head and tail.
func (sh *Shell) fill(res *Result, from, end int64, o ExecOptions) {
	res.OutputBytes = end - from
	var text string
	omittedRaw := int64(0)
	if end-from <= rawCap {
		text = sh.text(from, end)
	} else {
		head := sh.text(from, from+rawCap/2)
		tail := sh.text(end-rawCap/2, end)
		if i := strings.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:] // start at a whole line
		}
		omittedRaw = end - from - rawCap
		text = head + "\n" + tail
	}
	res.OutputLines = countLines(text)
	out, cut := cutText(text, o.MaxLines, o.MaxBytes)
	res.Output = out
	res.Truncated = cut.lines > 0 || cut.bytes > 0 || omittedRaw > 0
	res.OmittedLines, res.OmittedBytes = cut.lines, cut.bytes+int(omittedRaw)
}

// text is the clean text of raw output [from, end).
func (sh *Shell) text(from, end int64) string {
	if end <= from {
		return ""
	}
	return sh.sess.Text(from, end)
}

// omission is what cutText left out.
type omission struct{ lines, bytes int }

// cutText keeps the first and last lines of text within maxLines lines
// (<0: no limit) and maxBytes bytes, and says what it left out, with a
// marker line where it was.
func cutText(text string, maxLines, maxBytes int) (string, omission) {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	keepHead, keepTail := (n+1)/2, n/2
	if maxLines >= 0 && n > maxLines {
		keepHead = max(maxLines/2, 1)
		keepTail = max(maxLines-keepHead, 0)
	}
	// Shrink both ends until they fit the byte budget.
	pre := make([]int, n+1) // pre[i]: bytes of lines[:i]
	for i, l := range lines {
		pre[i+1] = pre[i] + len(l)
	}
	size := func(h, t int) int { return pre[h] + pre[n] - pre[n-t] }
	for keepHead+keepTail > 0 && size(keepHead, keepTail) > maxBytes {
		if keepTail >= keepHead && keepTail > 0 {
			keepTail--
		} else {
			keepHead--
		}
	}
	if keepHead+keepTail >= n {
		return text, omission{}
	}
	var b strings.Builder
	om := omission{lines: n - keepHead - keepTail}
	for _, l := range lines[keepHead : n-keepTail] {
		om.bytes += len(l)
	}
	for _, l := range lines[:keepHead] {
		b.WriteString(l)
	}
	if keepHead > 0 && !strings.HasSuffix(lines[keepHead-1], "\n") {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %d lines (%d bytes) omitted ...]\n", om.lines, om.bytes)
	for _, l := range lines[n-keepTail:] {
		b.WriteString(l)
	}
	return b.String(), om
}

func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
