package console

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentty/agentty/internal/cast"
	"github.com/agentty/agentty/internal/outlog"
)

// logChunk is the most output one read of the log copies.
const logChunk = 256 << 10

// log answers GET /v1/sessions/{id}/log: the session's output after line
// since_line (0 or none: from the first retained, as read_output), as clean text or,
// with raw=1, the bytes as written; with follow=1 it streams new output
// until the session ends or the client goes away.
func (h *Handler) log(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since := int64(0)
	if s := q.Get("since_line"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			fail(w, http.StatusBadRequest, "since_line is a line number: output after it is returned (0: from the start)")
			return
		}
		since = n
	}
	raw, follow := q.Get("raw") == "1", q.Get("follow") == "1"
	t, err := h.eng.Terminal(r.PathValue("id"))
	if err != nil {
		failErr(w, err)
		return
	}
	l := t.Output()
	off := l.Stats().Start
	if since > 0 {
		off = max(off, lineStart(l, since))
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	flush := func() {}
	if f, ok := w.(http.Flusher); ok && follow {
		flush = f.Flush
	}
	var clean liveText // raw=0
	for {
		changed := l.Changed()
		// A program's descendants may hold its output open after it
		// ended; once it has, the log is read to its end, not to EOF.
		ended := closed(t.Done())
		sl := l.Read(off, -1, logChunk, outlog.Both)
		off = sl.Next
		data := sl.Data
		if !raw {
			data = []byte(clean.Lines(data))
		}
		if len(data) > 0 {
			if _, err := w.Write(data); err != nil {
				return
			}
		}
		if sl.EOF || ((!follow || ended) && sl.Next >= sl.End) {
			if !raw {
				_, _ = w.Write([]byte(clean.Rest()))
			}
			if follow { // the output ends just before the exit is known
				select {
				case <-t.Done():
				case <-r.Context().Done():
				}
			}
			return
		}
		if len(sl.Data) > 0 {
			continue
		}
		// Caught up while following: show the line being written (a
		// prompt); it is written again once complete.
		if !raw {
			_, _ = w.Write([]byte(clean.Partial()))
		}
		flush()
		select {
		case <-changed:
		case <-t.Done():
		case <-r.Context().Done():
			return
		}
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// lineStart is the offset just after the n-th newline (n >= 1). The log's
// OffsetAfterLine answers its end for the last newline, skipping the
// unfinished line after it (a prompt), which a person wants to see.
func lineStart(l outlog.Log, n int64) int64 {
	if n < l.Stats().Lines {
		return l.OffsetAfterLine(n)
	}
	off := l.OffsetAfterLine(n - 1)
	for {
		sl := l.Read(off, -1, logChunk, outlog.Both)
		if i := bytes.IndexByte(sl.Data, '\n'); i >= 0 {
			return sl.From + int64(i) + 1
		}
		if len(sl.Data) == 0 {
			return sl.Next
		}
		off = sl.Next
	}
}

// liveText is clean text of output arriving in pieces, for a reader that
// also wants the unfinished line (a prompt) shown while it waits.
type liveText struct {
	c     cast.Cleaner
	shown string // clean text of the unfinished line already written
}

// Lines returns the text of the lines p completes, less what was shown.
func (l *liveText) Lines(p []byte) string { return l.after(l.c.Lines(p)) }

// Rest returns the rest of the text at the end of the output.
func (l *liveText) Rest() string { return l.after(l.c.Rest()) }

// Partial returns what to write so the unfinished line shows.
func (l *liveText) Partial() string {
	p := l.c.Partial()
	if p == l.shown {
		return ""
	}
	out := l.after(p)
	l.shown = p
	return out
}

// after returns text without the part of its first line already shown; a
// line redrawn differently is written again on a line of its own.
func (l *liveText) after(text string) string {
	if l.shown == "" || text == "" {
		return text
	}
	shown := l.shown
	l.shown = ""
	if strings.HasPrefix(text, shown) {
		return text[len(shown):]
	}
	return "\n" + text
}
