package runner

import (
	"bytes"
	"strconv"
	"strings"
)

// capture keeps the head and the tail of a stream within max bytes and
// counts every byte and line, so a result can say exactly what it left out
// without holding it.
type capture struct {
	max   int
	head  []byte
	tail  []byte // the newest bytes; at most max-len(head) after trim
	total int64
	lines int64 // newlines seen
	last  byte  // last byte written, to count an unterminated last line
}

func newCapture(max int) *capture { return &capture{max: max} }

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if n > 0 {
		c.last = p[n-1]
	}
	if room := c.max/2 - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	keep := c.max - c.max/2
	if len(p) >= keep {
		c.tail = append(c.tail[:0], p[len(p)-keep:]...)
		return n, nil
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*keep {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-keep:]...)
	}
	return n, nil
}

// Stream is one captured output stream.
type Stream struct {
	Text         string
	Bytes        int64 // bytes the program wrote to this stream
	Lines        int64 // lines the program wrote (a final unterminated line counts)
	Truncated    bool
	OmittedBytes int64 // bytes left out of the middle of text
}

// result renders the capture: whole when it fit, else head, a marker line
// and tail, cut at UTF-8 boundaries.
func (c *capture) result() Stream {
	s := Stream{Bytes: c.total, Lines: c.lines}
	if c.total > 0 && c.last != '\n' {
		s.Lines++
	}
	keep := c.max - c.max/2
	tail := c.tail
	if len(tail) > keep {
		tail = tail[len(tail)-keep:]
	}
	if c.total <= int64(len(c.head)+len(tail)) {
		s.Text = strings.ToValidUTF8(string(c.head)+string(tail), "\uFFFD")
		return s
	}
	head := trimPartialRune(c.head, false)
	tail = trimPartialRune(tail, true)
	s.Truncated = true
	s.OmittedBytes = c.total - int64(len(head)+len(tail))
	var b strings.Builder
	b.WriteString(strings.ToValidUTF8(string(head), "\uFFFD"))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("[... " + strconv.FormatInt(s.OmittedBytes, 10) + " bytes omitted ...]\n")
	b.WriteString(strings.ToValidUTF8(string(tail), "\uFFFD"))
	s.Text = b.String()
	return s
}

// trimPartialRune drops a UTF-8 character cut in two at the end of head
// (or at the start of tail), so the cut does not show as replacement
// characters; the omitted count includes those bytes.
func trimPartialRune(b []byte, atStart bool) []byte {
	if atStart {
		i := 0
		for i < len(b) && i < 3 && b[i]&0xC0 == 0x80 {
			i++
		}
		return b[i:]
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-4; i-- {
		c := b[i]
		if c&0xC0 == 0x80 {
			continue
		}
		if c >= 0xC0 {
			need := 2
			if c >= 0xE0 {
				need = 3
			}
			if c >= 0xF0 {
				need = 4
			}
			if len(b)-i < need {
				return b[:i]
			}
		}
		break
	}
	return b
}
