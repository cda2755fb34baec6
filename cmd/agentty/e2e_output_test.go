package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// seqOutput is what seq 1 n prints, run directly as the reference.
func seqOutput(t *testing.T, n string) string {
	t.Helper()
	out, err := exec.Command("seq", "1", n).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestServe_TwoReaders(t *testing.T) {
	t.Parallel()
	want := seqOutput(t, "5000")
	s := startServer(t)
	var start readResult
	s.call("start_process", map[string]any{"argv": []string{"seq", "1", "5000"}, "mode": "pipe", "timeout_ms": 0}, &start)
	id := start.SessionID
	var reg struct {
		ReaderID int   `json:"reader_id"`
		Cursor   int64 `json:"cursor"`
	}
	s.call("register_reader", map[string]any{"session_id": id, "from": "start"}, &reg)
	if reg.ReaderID != 1 || reg.Cursor != 0 {
		t.Fatalf("register_reader = reader %d cursor %d, want reader 1 at cursor 0", reg.ReaderID, reg.Cursor)
	}
	// start_process already read through reader 0, so its output comes first.
	if got := start.Output + s.readAll(id, 0, nil); got != want {
		t.Errorf("reader 0 got %d bytes (%d lines), want seq's %d bytes (%d lines) exactly once",
			len(got), strings.Count(got, "\n"), len(want), strings.Count(want, "\n"))
	}
	if got := s.readAll(id, 1, nil); got != want {
		t.Errorf("reader 1 got %d bytes (%d lines), want seq's %d bytes (%d lines)",
			len(got), strings.Count(got, "\n"), len(want), strings.Count(want, "\n"))
	}
	for _, reader := range []int{0, 1} {
		var r readResult
		s.call("read_output", map[string]any{"session_id": id, "reader_id": reader, "timeout_ms": 0}, &r)
		if r.Output != "" || r.HasMore || r.State != "exited" || r.ReaderID != reader || r.Cursor != int64(len(want)) {
			t.Errorf("reader %d after the end: output %q has_more %v state %s reader %d cursor %d, want nothing more at cursor %d",
				reader, r.Output, r.HasMore, r.State, r.ReaderID, r.Cursor, len(want))
		}
	}
}

func TestServe_LargeOutput(t *testing.T) {
	t.Parallel()
	want := seqOutput(t, "1500000")
	// The largest page the server allows: as few round trips as possible.
	page := map[string]any{"overflow": "page", "max_bytes": session.MaxBytesCap}

	t.Run("all kept", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, "-session-memory", "64MiB")
		s.wholeOutput(map[string]any{"argv": []string{"seq", "1", "1500000"}, "mode": "pipe", "timeout_ms": 0}, want)
	})

	t.Run("evicted", func(t *testing.T) {
		t.Parallel()
		// Memory eviction is what this tests: without the store, output
		// older than memory is gone.
		s := startServer(t, "-session-memory", "1MiB", "-no-store")
		var start readResult
		s.call("start_process", map[string]any{"argv": []string{"seq", "1", "1500000"}, "mode": "pipe",
			"timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1, "overflow": "page"}, &start)
		if start.Reason != "exited" {
			t.Fatalf("seq did not finish within the 60 s start call: %+v", start)
		}
		var info infoResult
		s.call("get_session_info", map[string]any{"session_id": start.SessionID}, &info)
		total, retained := info.Bytes, info.Retained
		if total != int64(len(want)) || retained <= 0 || retained > 1<<20 || info.Evicted != total-retained {
			t.Fatalf("get_session_info: bytes %d retained %d evicted %d; want bytes %d, 0 < retained <= 1MiB, evicted = bytes - retained",
				total, retained, info.Evicted, len(want))
		}
		lost := total - retained
		wantLostLines := int64(strings.Count(want[:lost], "\n"))

		var got strings.Builder
		cursor := int64(0)
		for i := 0; ; i++ {
			args := map[string]any{"session_id": start.SessionID, "cursor": cursor, "timeout_ms": 0}
			for k, v := range page {
				args[k] = v
			}
			var r readResult
			s.call("read_output", args, &r)
			if i == 0 && (r.LostBytes != lost || r.LostLines != wantLostLines) {
				t.Errorf("read from cursor 0: lost %d bytes %d lines, want %d bytes %d lines", r.LostBytes, r.LostLines, lost, wantLostLines)
			}
			if i > 0 && r.LostBytes != 0 {
				t.Errorf("page %d from cursor %d: lost %d bytes, want 0", i, cursor, r.LostBytes)
			}
			got.WriteString(r.Output)
			if !r.HasMore {
				break
			}
			if r.Cursor <= cursor || i > 100 {
				t.Fatalf("paging stuck at cursor %d (next %d)", cursor, r.Cursor)
			}
			cursor = r.Cursor
		}
		// since_line 0 names the same start with its line number known, and
		// the retained tail must come back numbered as the lines they are.
		var byLine readResult
		s.call("read_output", map[string]any{"session_id": start.SessionID, "since_line": 0, "timeout_ms": 0,
			"max_bytes": session.MaxBytesCap, "overflow": "page"}, &byLine)
		if byLine.LostBytes != lost || byLine.LostLines != wantLostLines || byLine.Line != 1500000 || byLine.Output != want[lost:] {
			t.Errorf("read from since_line 0: lost %d bytes %d lines, line %d, %d bytes of output; want lost %d bytes %d lines, line 1500000, the %d-byte tail",
				byLine.LostBytes, byLine.LostLines, byLine.Line, len(byLine.Output), lost, wantLostLines, len(want)-int(lost))
		}
		if tail := want[lost:]; got.String() != tail {
			t.Errorf("retained text: %d bytes starting %q, want the last %d bytes of seq starting %q",
				got.Len(), head(got.String()), len(tail), head(tail))
		}
	})
}

func head(s string) string { return s[:min(len(s), 40)] }
