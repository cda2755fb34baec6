package session

import (
	"bytes"
	"unicode/utf8"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/termtext"
)

// Output size limits.
const (
	DefaultMaxBytes = 64 << 10 // returned per call when the caller names no limit
	// MaxBytesCap is the most a caller may ask for. A reply carries a long
	// output once, JSON-escaped, and must stay under 9 MiB: the TypeScript
	// client drops the connection over 10 MiB.
	MaxBytesCap = 8 << 20
)

// Overflow policies for output larger than the limits.
const (
	OverflowHeadTail = "head_tail" // keep the first and last part, report the middle
	OverflowPage     = "page"      // return the first part, continue from the cursor
	OverflowTail     = "tail"      // keep only the newest part, report what was skipped
)

// maxHeldBack bounds how much an unfinished escape sequence may hold back.
const maxHeldBack = 64 << 10

// ReadOptions shape what a read returns.
type ReadOptions struct {
	MaxBytes int           // raw bytes to return; 0 means DefaultMaxBytes
	MaxLines int           // lines to return; 0 means no line limit
	Overflow string        // OverflowHeadTail (default) or OverflowPage
	Raw      bool          // keep escape sequences (strip_ansi=false)
	Streams  outlog.Stream // pipe mode: which streams; 0 means both
	// MaxEncoded bounds the text's size once JSON-escaped (0: no bound).
	// Control bytes and HTML characters grow up to six-fold in JSON, so a
	// read that would not fit is retried with fewer bytes before any
	// cursor moves.
	MaxEncoded int
}

func (o *ReadOptions) normalize() {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	o.MaxBytes = min(o.MaxBytes, MaxBytesCap)
	if o.Streams == 0 {
		o.Streams = outlog.Both
	}
	if o.Overflow == "" {
		o.Overflow = OverflowHeadTail
	}
}

// Omitted describes output left out of the middle of a result. From and To
// are cursors: a read from From with OverflowPage returns it.
type Omitted struct {
	From  int64
	To    int64
	Bytes int64
	Lines int64
}

// Output is text read from a session's log.
type Output struct {
	Text      string
	From      int64 // cursor where this read started (after any lost output)
	Next      int64 // cursor to continue from
	Line      int64 // newlines before Next: the cursor sits at the start of line Line+1
	Lines     int   // lines in Text (a final unterminated line counts)
	Truncated bool
	Omitted   *Omitted
	Cut       int   // with Omitted: index in Text where the omitted middle belongs
	HasMore   bool  // output beyond Next was available at read time
	LostBytes int64 // evicted before the reader got to it
	LostLines int64 // -1 when unknown
	EOF       bool  // the process exited and every byte was read
}

// readAt reads from cursor from (fromLine: newlines before it, or -1),
// shrinking the read until its text fits o.MaxEncoded.
func (s *Session) readAt(from, fromLine int64, o ReadOptions) Output {
	o.normalize()
	for {
		out := s.readOnce(from, fromLine, o)
		if o.MaxEncoded <= 0 || o.MaxBytes <= 1024 || jsonLen(out.Text) <= o.MaxEncoded {
			return out
		}
		o.MaxBytes /= 2
	}
}

// jsonLen is the length of text as a JSON string body, escaped the way
// encoding/json does (HTML characters included).
func jsonLen(text string) int {
	n := 0
	for _, r := range text {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\t' || r == '\r' || r == '\b' || r == '\f':
			n += 2
		case r < 0x20 || r == '<' || r == '>' || r == '&' || r == 0x2028 || r == 0x2029:
			n += 6
		case r == utf8.RuneError:
			n += 6 // invalid bytes are written as \ufffd
		default:
			n += utf8.RuneLen(r)
		}
	}
	return n
}

// readOnce is one read attempt with fixed limits.
func (s *Session) readOnce(from, fromLine int64, o ReadOptions) Output {
	st := s.log.Stats()
	end, closed := st.End, st.Closed
	sl := s.log.Read(from, fromLine, o.MaxBytes, o.Streams)
	out := Output{From: sl.From, LostBytes: sl.LostBytes, LostLines: sl.LostLines}
	head, next := sl.Data, sl.Next
	var tail []byte
	var tailFrom int64 = -1
	overflow := next < end && len(s.log.Read(next, -1, 1, o.Streams).Data) > 0
	if overflow && o.Overflow != OverflowPage {
		// More than the limit is new: keep the head (head_tail) and the
		// newest part.
		half := o.MaxBytes / 2
		if o.Overflow == OverflowTail {
			head = head[:0]
		} else {
			head = cutAtLastNewline(head[:min(half, len(head))])
		}
		tailFrom = max(end-int64(o.MaxBytes-len(head)), sl.From+int64(len(head)))
		ts := s.log.Read(tailFrom, -1, 0, o.Streams)
		tail = ts.Data
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
			tailFrom = s.absAt(tailFrom, o.Streams, i+1)
			tail = tail[i+1:]
		}
		next = ts.Next
	} else if overflow {
		head = cutAtLastNewline(head)
		out.HasMore = true
	}
	if o.MaxLines > 0 {
		head, tail, tailFrom, out.HasMore = s.limitLines(sl.From, head, tail, tailFrom, o, out.HasMore)
	}
	final := closed && tailFrom < 0 && !out.HasMore
	if tailFrom >= 0 {
		headEnd := s.absAt(sl.From, o.Streams, len(head))
		ht, _ := clean(head, true, o.Raw)
		tt, n := clean(tail, closed, o.Raw)
		if !o.Raw {
			ht, _ = s.dropEchoes(ht, head, sl.From, true)
			tt, _ = s.dropEchoes(tt, tail[:n], tailFrom, true)
		}
		out.Text = ht + tt
		out.Cut = len(ht)
		out.Truncated = true
		out.Omitted = &Omitted{From: headEnd, To: tailFrom, Bytes: tailFrom - headEnd,
			Lines: s.log.LineAt(tailFrom) - s.log.LineAt(headEnd)}
		if n < len(tail) {
			next = s.absAt(tailFrom, o.Streams, n)
		}
	} else {
		t, n := clean(head, final, o.Raw)
		if n == 0 && len(head) >= maxHeldBack {
			// An escape string that never ends must not stall the reader.
			t, n = clean(head, true, o.Raw)
		}
		if !o.Raw {
			var keep int
			if t, keep = s.dropEchoes(t, head[:n], sl.From, final); keep >= 0 {
				n = keep
			}
		}
		out.Text = t
		next = s.absAt(sl.From, o.Streams, n)
		if out.HasMore {
			out.Truncated = true
		}
	}
	out.Next = next
	out.Line = s.log.LineAt(next)
	out.Lines = countLines(out.Text)
	out.EOF = closed && next >= end
	return out
}

// limitLines applies MaxLines to the pieces of a read.
func (s *Session) limitLines(from int64, head, tail []byte, tailFrom int64, o ReadOptions, more bool) ([]byte, []byte, int64, bool) {
	h := o.headLines()
	if tailFrom >= 0 {
		head = firstLines(head, h)
		if skip := countNewlines(tail) - (o.MaxLines - h); skip > 0 {
			cut := afterNthNewline(tail, skip)
			tailFrom = s.absAt(tailFrom, o.Streams, cut)
			tail = tail[cut:]
		}
		return head, tail, tailFrom, more
	}
	if lineCount(head) <= o.MaxLines {
		return head, tail, tailFrom, more
	}
	if o.Overflow == OverflowPage {
		return firstLines(head, o.MaxLines), nil, -1, true
	}
	t := o.MaxLines - h
	skip := lineCount(head) - t
	cut := afterNthNewline(head, skip)
	if cut >= len(head) {
		cut = afterNthNewline(head, skip-1)
	}
	return firstLines(head, h), head[cut:], s.absAt(from, o.Streams, cut), more
}

// headLines is how many of MaxLines go to the head of a cut result.
func (o *ReadOptions) headLines() int {
	if o.Overflow == OverflowTail {
		return 0
	}
	return max(o.MaxLines/2, 1)
}

// absAt maps n bytes into a stream-filtered read starting at from to the
// log's absolute offset.
func (s *Session) absAt(from int64, mask outlog.Stream, n int) int64 {
	if mask == outlog.Both || n == 0 {
		return from + int64(n)
	}
	return s.log.Read(from, -1, n, mask).Next
}

func clean(b []byte, final, raw bool) (string, int) {
	if raw {
		return termtext.Raw(b, final)
	}
	return termtext.Clean(b, final)
}

func cutAtLastNewline(b []byte) []byte {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[:i+1]
	}
	return b
}

func countNewlines(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

// lineCount counts lines, an unterminated last line included.
func lineCount(b []byte) int {
	n := countNewlines(b)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func countLines(s string) int { return lineCount([]byte(s)) }

// afterNthNewline returns the index just after the n-th newline of b.
func afterNthNewline(b []byte, n int) int {
	at := 0
	for range n {
		i := bytes.IndexByte(b[at:], '\n')
		if i < 0 {
			return len(b)
		}
		at += i + 1
	}
	return at
}

func firstLines(b []byte, n int) []byte { return b[:afterNthNewline(b, n)] }
