// Package history answers get_history: a non-consuming view of a session's
// past output by line, from the end or as an absolute range, optionally
// filtered by a regular expression with context lines. It works over any
// outlog.Log, so it reads the in-memory log of a live session, the
// store-backed log (memory, then disk) or a past session's transcript alike,
// and never moves any reader's cursor.
package history

import (
	"bytes"
	"regexp"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/termtext"
)

// Defaults and caps.
const (
	DefaultCount      = 100
	MaxCount          = 10000
	DefaultMaxBytes   = 256 << 10
	MaxBytesCap       = 4 << 20
	DefaultMaxMatches = 50
	MaxContext        = 50
	window            = 1 << 20 // bytes read per Log.Read while scanning
)

// Query selects lines. Lines are numbered from 1; a final line without a
// newline counts.
type Query struct {
	// Count is how many lines (without Grep) or the size of the window
	// Grep scans (0: the whole transcript with Grep, DefaultCount without).
	Count int
	// FromEnd skips this many newest lines: Count lines ending FromEnd
	// lines before the end. Ignored when StartLine is set.
	FromEnd int64
	// StartLine (1-based) selects an absolute range starting there.
	StartLine int64
	// Grep keeps only matching lines (over clean text) plus Context lines
	// around each; the newest MaxMatches matches are kept.
	Grep       *regexp.Regexp
	Context    int
	MaxMatches int
	MaxBytes   int  // text returned; older lines are dropped first (from the end) or newer (absolute)
	Raw        bool // keep escape sequences
	// LineCost, when set, is what one returned line costs against
	// MaxBytes once it is sent (a caller that sends each line twice, as
	// text and as structured data, counts both); nil counts its text.
	LineCost func(Line) int
}

// Line is one returned line.
type Line struct {
	N     int64
	Text  string
	Match bool
}

// Result is what Get returns.
type Result struct {
	Lines      []Line
	TotalLines int64 // lines in the whole output so far
	FirstLine  int64 // range scanned: first and last line numbers
	LastLine   int64
	LostLines  int64 // lines of the range that retention removed
	Truncated  bool  // MaxBytes or MaxMatches cut the result
	Matches    int   // with Grep: matches in the range (also those not returned)
	Scanned    int64 // output bytes read
}

// Get answers q from l without changing l.
func Get(l outlog.Log, q Query) Result {
	res := get(l, q)
	if q.LineCost != nil {
		fitCost(&res, q)
	}
	return res
}

// fitCost drops lines until their cost fits MaxBytes: the oldest ones,
// or the newest for an absolute range, as the text bound does. A range's
// first and last line then name what is returned; a grep's stay the
// range scanned.
func fitCost(res *Result, q Query) {
	limit := q.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	limit = min(limit, MaxBytesCap)
	size := 0
	for _, ln := range res.Lines {
		size += q.LineCost(ln)
	}
	if size <= limit {
		return
	}
	newest := q.StartLine <= 0 || q.Grep != nil
	for size > limit && len(res.Lines) > 1 {
		if newest {
			size -= q.LineCost(res.Lines[0])
			res.Lines = res.Lines[1:]
		} else {
			size -= q.LineCost(res.Lines[len(res.Lines)-1])
			res.Lines = res.Lines[:len(res.Lines)-1]
		}
	}
	res.Truncated = true
	if q.Grep == nil && len(res.Lines) > 0 {
		res.FirstLine, res.LastLine = res.Lines[0].N, res.Lines[len(res.Lines)-1].N
	}
}

func get(l outlog.Log, q Query) Result {
	if q.MaxBytes <= 0 {
		q.MaxBytes = DefaultMaxBytes
	}
	q.MaxBytes = min(q.MaxBytes, MaxBytesCap)
	if q.MaxMatches <= 0 {
		q.MaxMatches = DefaultMaxMatches
	}
	q.Context = min(max(q.Context, 0), MaxContext)
	st := l.Stats()
	total := totalLines(l, st)
	res := Result{TotalLines: total}
	count := int64(q.Count)
	if count <= 0 {
		count = DefaultCount
		if q.Grep != nil {
			count = total
		}
	}
	var a, b int64 // lines a+1..b
	if q.StartLine > 0 {
		a, b = q.StartLine-1, min(total, q.StartLine-1+count)
	} else {
		b = max(0, total-q.FromEnd)
		a = max(0, b-count)
	}
	if a >= b {
		res.FirstLine, res.LastLine = a+1, a
		return res
	}
	if a < st.StartLine {
		res.LostLines = st.StartLine - a
		res.Truncated = true
	}
	res.FirstLine, res.LastLine = a+1, b
	from := lineStart(l, a, st)
	to := st.End
	if b < total {
		to = lineStart(l, b, st)
	}
	if q.Grep != nil {
		grep(l, from, to, max(a, st.StartLine)+1, q, &res)
		return res
	}
	fromEnd := q.StartLine <= 0
	if fromEnd && to-from > int64(q.MaxBytes) {
		from = to - int64(q.MaxBytes)
		res.Truncated = true
		raw, n := readRange(l, from, to, q.MaxBytes)
		res.Scanned = n
		// Drop the partial first line.
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			raw = raw[i+1:]
		}
		first := b - int64(bytes.Count(raw, []byte{'\n'}))
		if len(raw) > 0 && raw[len(raw)-1] != '\n' {
			first--
		}
		res.Lines = toLines(raw, first+1, q.Raw)
		res.FirstLine = first + 1
		return res
	}
	raw, n := readRange(l, from, to, q.MaxBytes)
	res.Scanned = n
	if int64(len(raw)) < to-from {
		res.Truncated = true
		if i := bytes.LastIndexByte(raw, '\n'); i >= 0 {
			raw = raw[:i+1]
		}
	}
	first := max(a, st.StartLine) + 1
	res.Lines = toLines(raw, first, q.Raw)
	if len(res.Lines) > 0 {
		res.LastLine = res.Lines[len(res.Lines)-1].N
	}
	return res
}

// totalLines counts lines, a final unterminated one included.
func totalLines(l outlog.Log, st outlog.Stats) int64 {
	if st.End == 0 {
		return 0
	}
	if st.Lines == 0 {
		return 1
	}
	last := l.OffsetAfterLine(st.Lines - 1)
	// The bytes from the start of the last complete line: is anything
	// after its newline?
	sl := l.Read(last, -1, window, outlog.Both)
	for len(sl.Data) > 0 {
		if i := bytes.IndexByte(sl.Data, '\n'); i >= 0 {
			if sl.From+int64(i)+1 < st.End {
				return st.Lines + 1
			}
			return st.Lines
		}
		if sl.Next >= st.End {
			break
		}
		sl = l.Read(sl.Next, -1, window, outlog.Both)
	}
	return st.Lines
}

// lineStart is the offset where line n+1 starts (after the n-th newline).
func lineStart(l outlog.Log, n int64, st outlog.Stats) int64 {
	if n == 0 {
		return 0
	}
	if n < st.Lines {
		return l.OffsetAfterLine(n)
	}
	// The final unterminated line: after the last newline.
	off := l.OffsetAfterLine(n - 1)
	sl := l.Read(off, -1, window, outlog.Both)
	for len(sl.Data) > 0 {
		if i := bytes.IndexByte(sl.Data, '\n'); i >= 0 {
			return sl.From + int64(i) + 1
		}
		sl = l.Read(sl.Next, -1, window, outlog.Both)
	}
	return st.End
}

// readRange reads [from, to) up to max bytes; it returns the bytes and how
// many it read.
func readRange(l outlog.Log, from, to int64, max int) ([]byte, int64) {
	var out []byte
	at := from
	for at < to && len(out) < max {
		sl := l.Read(at, -1, min(window, max-len(out), int(to-at)), outlog.Both)
		if sl.Next <= at && len(sl.Data) == 0 {
			break
		}
		out = append(out, sl.Data...)
		at = sl.Next
	}
	return out, int64(len(out))
}

// toLines splits raw output into clean numbered lines starting at first.
func toLines(raw []byte, first int64, keepRaw bool) []Line {
	var out []Line
	n := first
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\n')
		var line []byte
		if i < 0 {
			line, raw = raw, nil
		} else {
			line, raw = raw[:i], raw[i+1:]
		}
		out = append(out, Line{N: n, Text: cleanLine(line, keepRaw)})
		n++
	}
	return out
}

func cleanLine(b []byte, keepRaw bool) string {
	if keepRaw {
		t, _ := termtext.Raw(b, true)
		return t
	}
	t, _ := termtext.Clean(b, true)
	return t
}
