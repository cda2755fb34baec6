package console

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/termtext"
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
	var pending []byte // raw=0: bytes Clean kept for the next call
	for {
		changed := l.Changed()
		// A program's descendants may hold its output open after it
		// ended; once it has, the log is read to its end, not to EOF.
		ended := closed(t.Done())
		sl := l.Read(off, -1, logChunk, outlog.Both)
		off = sl.Next
		data := sl.Data
		if !raw {
			pending = append(pending, data...)
			text, n := termtext.Clean(pending, sl.EOF)
			pending = append(pending[:0], pending[n:]...)
			data = []byte(text)
		}
		if len(data) > 0 {
			if _, err := w.Write(data); err != nil {
				return
			}
		}
		if sl.EOF || ((!follow || ended) && sl.Next >= sl.End) {
			if !raw && len(pending) > 0 {
				text, _ := termtext.Clean(pending, true)
				_, _ = w.Write([]byte(text))
			}
			return
		}
		if len(sl.Data) > 0 {
			continue
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
