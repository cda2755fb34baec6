package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// seqScript prints "line 1".."line n" then "ERROR at 37" style markers.
func seqScript(n int) string {
	return fmt.Sprintf(`for i in $(seq 1 %d); do echo "line $i"; done; echo "ERROR boom"; echo tail`, n)
}

func TestGetHistory_Ranges(t *testing.T) {
	for _, withStore := range []bool{false, true} {
		t.Run(fmt.Sprintf("store=%v", withStore), func(t *testing.T) {
			// A tiny memory window forces the store case to read from disk.
			cfg := session.Config{OutputLimit: 4096}
			var c *client
			if withStore {
				c, _ = newStoreClient(t, t.TempDir(), cfg, nil)
			} else {
				c = newClient(t, session.Config{})
			}
			r := c.start(map[string]any{"command": seqScript(2000), "mode": "pipe", "until": "^tail$"})
			if r.State != "exited" {
				c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 10000}, nil)
			}
			cases := []struct {
				name  string
				args  map[string]any
				first int64
				want  []string
			}{
				{"last 3", map[string]any{"lines": 3}, 2000, []string{"line 2000", "ERROR boom", "tail"}},
				{"from end", map[string]any{"lines": 2, "from_end": 2}, 1999, []string{"line 1999", "line 2000"}},
				{"absolute", map[string]any{"start_line": 5, "lines": 3}, 5, []string{"line 5", "line 6", "line 7"}},
				{"first line", map[string]any{"start_line": 1, "lines": 1}, 1, []string{"line 1"}},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					tc.args["session_id"] = r.SessionID
					var h HistoryResult
					c.call("get_history", tc.args, &h)
					if h.TotalLines != 2002 {
						t.Errorf("total_lines = %d, want 2002", h.TotalLines)
					}
					var got []string
					for i, ln := range h.Lines {
						got = append(got, ln.Text)
						if ln.N != tc.first+int64(i) {
							t.Errorf("line %d numbered %d, want %d", i, ln.N, tc.first+int64(i))
						}
					}
					if strings.Join(got, "|") != strings.Join(tc.want, "|") {
						t.Errorf("lines = %q, want %q", got, tc.want)
					}
				})
			}
			t.Run("grep with context", func(t *testing.T) {
				var h HistoryResult
				c.call("get_history", map[string]any{"session_id": r.SessionID, "grep": `^line 1[05]00$|ERROR`, "context": 1}, &h)
				want := []string{"999-line 999", "1000:line 1000", "1001-line 1001", "1499-line 1499", "1500:line 1500", "1501-line 1501",
					"2000-line 2000", "2001:ERROR boom", "2002-tail"}
				var got []string
				for _, ln := range h.Lines {
					sep := "-"
					if ln.Match {
						sep = ":"
					}
					got = append(got, fmt.Sprintf("%d%s%s", ln.N, sep, ln.Text))
				}
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("grep lines = %q\nwant %q", got, want)
				}
				if h.Matches == nil || *h.Matches != 3 {
					t.Errorf("matches = %v, want 3", h.Matches)
				}
			})
			t.Run("non-consuming", func(t *testing.T) {
				var out ReadResult
				c.call("read_output", map[string]any{"session_id": r.SessionID, "cursor": 0, "max_lines": 2, "overflow": "page", "timeout_ms": 0}, &out)
				if !strings.HasPrefix(out.Output, "line 1\nline 2") {
					t.Errorf("read from cursor 0 after get_history = %q", out.Output)
				}
			})
		})
	}
}

func TestGetHistory_BadArgs(t *testing.T) {
	c := newClient(t, session.Config{})
	r := c.start(map[string]any{"command": "echo hi", "mode": "pipe"})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"session_id": r.SessionID, "grep": "("}, "not a valid RE2"},
		{map[string]any{"session_id": r.SessionID, "lines": -1}, "lines must be"},
		{map[string]any{"session_id": r.SessionID, "start_line": 3, "from_end": 2}, "not both"},
		{map[string]any{"session_id": "nope"}, "session not found"},
	} {
		if msg := c.toolError("get_history", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("get_history(%v) error %q, want %q", tc.args, msg, tc.want)
		}
	}
	if msg := c.toolError("list_messages", map[string]any{"session_id": r.SessionID}); !strings.Contains(msg, "--no-store") {
		t.Errorf("list_messages without store: %q", msg)
	}
}

// TestGetHistory_MaxBytesBoundsReply: max_bytes bounds the reply as sent,
// lines in the text block and in structuredContent both, for the last
// lines, an absolute range and grep; before, short lines made a reply
// three times max_bytes.
func TestGetHistory_MaxBytesBoundsReply(t *testing.T) {
	c := newClient(t, session.Config{})
	r := c.start(map[string]any{"command": seqScript(20000), "mode": "pipe", "until": "^tail$"})
	if r.State != "exited" {
		c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 10000}, nil)
	}
	const maxBytes = 32 << 10
	for _, tc := range []struct {
		name string
		args map[string]any
		// first and last line numbers wanted (0: not checked)
		first, last int64
	}{
		{"last lines", map[string]any{"lines": 10000}, 0, 20002},
		{"absolute", map[string]any{"start_line": 1, "lines": 10000}, 1, 0},
		{"grep", map[string]any{"grep": `^line`, "max_matches": 10000}, 0, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["session_id"] = r.SessionID
			tc.args["max_bytes"] = maxBytes
			var h HistoryResult
			res := c.call("get_history", tc.args, &h)
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			// The lines fit max_bytes; the envelope (header line, counts,
			// field names) is the little left over.
			if len(b) > maxBytes+1024 {
				t.Fatalf("reply is %d bytes for max_bytes %d", len(b), maxBytes)
			}
			if len(b) < maxBytes*3/4 {
				t.Fatalf("reply is %d bytes for max_bytes %d: the bound was not used", len(b), maxBytes)
			}
			if !h.Truncated || len(h.Lines) < 100 {
				t.Fatalf("truncated=%v with %d lines; want a truncated reply of many lines", h.Truncated, len(h.Lines))
			}
			for i := 1; i < len(h.Lines); i++ {
				if h.Lines[i].N != h.Lines[i-1].N+1 {
					t.Fatalf("line %d numbered %d after %d: not contiguous", i, h.Lines[i].N, h.Lines[i-1].N)
				}
			}
			if n := h.Lines[0].N; tc.first != 0 && n != tc.first {
				t.Errorf("first line %d, want %d", n, tc.first)
			}
			if n := h.Lines[len(h.Lines)-1].N; tc.last != 0 && n != tc.last {
				t.Errorf("last line %d, want %d", n, tc.last)
			}
			if tc.args["grep"] == nil && (h.FirstLine != h.Lines[0].N || h.LastLine != h.Lines[len(h.Lines)-1].N) {
				t.Errorf("first_line %d last_line %d, want the returned lines' %d and %d", h.FirstLine, h.LastLine, h.Lines[0].N, h.Lines[len(h.Lines)-1].N)
			}
		})
	}
}
