package history

import (
	"bytes"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/termtext"
)

// block is a run of consecutive returned lines around one or more matches.
type block struct {
	lines   []Line
	matches int
}

// grep scans [from, to) line by line (line numbers from first) and keeps
// the newest q.MaxMatches matches with their context.
func grep(l outlog.Log, from, to, first int64, q Query, res *Result) {
	var blocks []*block
	kept := 0
	var before []Line // ring of the last q.Context lines
	after := 0        // lines still owed to the last block
	n := first
	size := 0
	visit := func(raw []byte) {
		var text string
		var matched bool
		if termtext.IsPlain(raw) {
			// Plain text cleans to itself: match the bytes, and copy
			// them only when the line is kept.
			matched = q.Grep.Match(raw)
			if !matched && after == 0 && q.Context == 0 {
				n++
				return
			}
			text = string(raw)
		} else {
			text = cleanLine(raw, q.Raw)
			matched = q.Grep.MatchString(text)
		}
		ln := Line{N: n, Text: text}
		n++
		if matched {
			ln.Match = true
			res.Matches++
			// before only holds lines after the last block, so the new
			// context touches that block exactly when it starts right
			// after it.
			start := ln.N
			if len(before) > 0 {
				start = before[0].N
			}
			var b *block
			if k := len(blocks); k > 0 && blocks[k-1].last() >= start-1 {
				b = blocks[k-1]
				b.lines = append(b.lines, before...)
			} else {
				b = &block{lines: append([]Line(nil), before...)}
				blocks = append(blocks, b)
			}
			b.lines = append(b.lines, ln)
			b.matches++
			kept++
			after = q.Context
			for kept > q.MaxMatches {
				blocks[0].dropFirstMatch(q.Context)
				kept--
				if blocks[0].matches == 0 {
					blocks = blocks[1:]
				}
				res.Truncated = true
			}
			before = before[:0]
			return
		}
		if after > 0 {
			blocks[len(blocks)-1].lines = append(blocks[len(blocks)-1].lines, ln)
			after--
			return
		}
		if q.Context > 0 {
			if len(before) == q.Context {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, ln)
		}
	}
	var carry []byte
	at := from
	for at < to {
		sl := l.Read(at, -1, min(window, int(to-at)), outlog.Both)
		if sl.Next <= at && len(sl.Data) == 0 {
			break
		}
		res.Scanned += int64(len(sl.Data))
		at = sl.Next
		buf := append(carry, sl.Data...)
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			visit(buf[:i])
			buf = buf[i+1:]
		}
		carry = append(carry[:0:0], buf...)
	}
	if len(carry) > 0 {
		visit(carry)
	}
	for _, b := range blocks {
		for _, ln := range b.lines {
			size += len(ln.Text) + 1
		}
	}
	// Over the byte bound: drop the oldest blocks.
	for size > q.MaxBytes && len(blocks) > 1 {
		for _, ln := range blocks[0].lines {
			size -= len(ln.Text) + 1
		}
		blocks = blocks[1:]
		res.Truncated = true
	}
	for _, b := range blocks {
		res.Lines = append(res.Lines, b.lines...)
	}
	// One block alone over the bound: keep its newest lines.
	for size > q.MaxBytes && len(res.Lines) > 1 {
		size -= len(res.Lines[0].Text) + 1
		res.Lines = res.Lines[1:]
		res.Truncated = true
	}
	if kept < res.Matches {
		res.Truncated = true
	}
}

func (b *block) last() int64 { return b.lines[len(b.lines)-1].N }

// dropFirstMatch removes the block's oldest match with the lines before it
// and the lines after it that are no longer context of the next match.
func (b *block) dropFirstMatch(context int) {
	i := 0
	for !b.lines[i].Match {
		i++
	}
	i++
	j := i
	for j < len(b.lines) && !b.lines[j].Match {
		j++
	}
	if j < len(b.lines) {
		i = max(i, j-context)
	} else {
		i = len(b.lines)
	}
	b.lines = b.lines[i:]
	b.matches--
}
