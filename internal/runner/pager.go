package runner

import "bytes"

// pager keeps the lines [first, first+size) of a stream and counts all of
// them, so a page of a huge output costs only the page's memory.
type pager struct {
	first, size int64
	maxBytes    int   // bound on the page's bytes (very long lines)
	line        int64 // index of the line being written
	page        []byte
	clipped     bool // the page hit maxBytes
	last        byte
	total       int64
}

func (p *pager) Write(b []byte) (int, error) {
	n := len(b)
	if n > 0 {
		p.last = b[n-1]
	}
	p.total += int64(n)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg = b[:i+1]
		}
		if p.line >= p.first && p.line < p.first+p.size {
			if room := p.maxBytes - len(p.page); room >= len(seg) {
				p.page = append(p.page, seg...)
			} else {
				p.page = append(p.page, seg[:max(room, 0)]...)
				p.clipped = true
			}
		}
		b = b[len(seg):]
		if i >= 0 {
			p.line++
		}
	}
	return n, nil
}

// lines is the number of lines written (a final unterminated line counts).
func (p *pager) lines() int64 {
	if p.total > 0 && p.last != '\n' {
		return p.line + 1
	}
	return p.line
}
