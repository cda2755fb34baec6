package mcpserver

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

func TestTranscript_PasswordRedacted(t *testing.T) {
	dir := t.TempDir()
	c, st := newStoreClient(t, dir, session.Config{}, nil)
	const secret = "hunter2-Zq9"
	r := c.start(map[string]any{"argv": []string{"bash", "-c", `read -s -p "Password: " pw; echo; echo "got ${#pw} chars"; read -p "name? " n; echo "hello $n"`}})
	if r.State != "awaiting_password" {
		t.Fatalf("state %q, want awaiting_password (output %q)", r.State, r.Output)
	}
	var out SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": secret, "enter": true}, &out)
	if !strings.Contains(out.Output, "got 11 chars") {
		t.Fatalf("after password: %q", out.Output)
	}
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "visible-name", "enter": true, "until": "hello"}, &out)

	var msgs ListMessagesResult
	c.call("list_messages", map[string]any{"session_id": r.SessionID, "types": []string{"input"}}, &msgs)
	if len(msgs.Messages) != 2 {
		t.Fatalf("input messages: %+v, want 2", msgs.Messages)
	}
	pw, name := msgs.Messages[0], msgs.Messages[1]
	if !pw.Redacted || pw.Content != "" || pw.Size != int64(len(secret)+1) || pw.From != "test-agent" {
		t.Errorf("password input recorded as %+v; want redacted, no content, size %d, from test-agent", pw, len(secret)+1)
	}
	if name.Redacted || name.Content != "visible-name\r" {
		t.Errorf("name input recorded as %+v", name)
	}
	var h HistoryResult
	c.call("get_history", map[string]any{"session_id": r.SessionID, "lines": 100}, &h)
	if strings.Contains(h.Text(), secret) {
		t.Errorf("get_history shows the password: %q", h.Text())
	}
	var found SearchResult
	c.call("search_output", map[string]any{"pattern": "hunter2"}, &found)
	if found.Count != 0 {
		t.Errorf("search_output finds the password: %+v", found.Matches)
	}
	// Nothing on disk holds it: database, WAL or anything else.
	if !st.Sync(10e9) {
		t.Fatal("sync timed out")
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s contains the password", path)
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("walking the store: %v (%d files)", err, files)
	}
}

func TestTranscript_MessagesInOrder(t *testing.T) {
	c, _ := newStoreClient(t, t.TempDir(), session.Config{}, nil)
	r := c.start(map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0})
	var out SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "alpha", "enter": true, "until": "alpha"}, &out)
	c.call("send_input", map[string]any{"session_id": r.SessionID, "keys": []string{"ctrl+d"}, "timeout_ms": 10000}, &out)
	if out.State != "exited" {
		var rr ReadResult
		c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 10000}, &rr)
	}
	var msgs ListMessagesResult
	c.call("list_messages", map[string]any{"session_id": r.SessionID}, &msgs)
	var got []string
	for _, m := range msgs.Messages {
		got = append(got, m.Type+":"+m.Event+":"+m.Content)
	}
	want := []string{"input::alpha\n", "output::alpha\n", "event:signal:stdin closed", "event:exit:exit code 0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("messages %q\nwant %q", got, want)
	}
	var one GetMessageResult
	c.call("get_message", map[string]any{"session_id": r.SessionID, "message_id": msgs.Messages[1].ID, "offset": 2}, &one)
	if len(one.Messages) != 1 || one.Messages[0].Content != "pha\n" || one.Messages[0].Type != "output" || one.Messages[0].Stream != "stdout" {
		t.Errorf("get_message from offset 2: %+v", one)
	}
	var two GetMessageResult
	c.call("get_message", map[string]any{"session_id": r.SessionID, "message_ids": []int64{msgs.Messages[0].ID, msgs.Messages[3].ID}}, &two)
	if len(two.Messages) != 2 || two.Messages[0].Content != "alpha\n" || two.Messages[1].Content != "exit code 0" {
		t.Errorf("get_message with two ids: %+v", two)
	}
	// Paging.
	var page ListMessagesResult
	c.call("list_messages", map[string]any{"session_id": r.SessionID, "limit": 1, "after_id": msgs.Messages[0].ID}, &page)
	if len(page.Messages) != 1 || page.Messages[0].ID != msgs.Messages[1].ID || !page.HasMore {
		t.Errorf("page after first: %+v", page)
	}
	if msg := c.toolError("get_message", map[string]any{"session_id": r.SessionID, "message_id": 999999}); !strings.Contains(msg, "not in the transcript store") {
		t.Errorf("missing message: %q", msg)
	}
}

func TestTranscript_SearchNewestFirstAndDelete(t *testing.T) {
	c, _ := newStoreClient(t, t.TempDir(), session.Config{}, nil)
	var ids []string
	for _, word := range []string{"first", "second", "third"} {
		r := c.start(map[string]any{"command": "echo 'needle " + word + "'; echo other; echo 'needle " + word + " again'", "mode": "pipe", "until": "again"})
		ids = append(ids, r.SessionID)
	}
	var found SearchResult
	c.call("search_output", map[string]any{"pattern": `^needle`, "max_results": 3}, &found)
	var got []string
	for _, m := range found.Matches {
		got = append(got, m.SessionID+":"+m.Text)
	}
	want := []string{ids[2] + ":needle third again", ids[2] + ":needle third", ids[1] + ":needle second again"}
	var bounded SearchResult
	c.call("search_output", map[string]any{"pattern": `^needle`, "max_scan_bytes": 1}, &bounded)
	if bounded.Complete || bounded.ScannedBytes == 0 || bounded.Count > 2 {
		t.Errorf("search bounded to 1 byte: %+v", bounded)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") || found.Complete {
		t.Fatalf("search = %q complete=%v\nwant %q, incomplete", got, found.Complete, want)
	}
	if found.Matches[0].Line != 3 || found.Matches[1].Line != 1 {
		t.Errorf("line numbers %d, %d; want 3, 1", found.Matches[0].Line, found.Matches[1].Line)
	}
	c.call("search_output", map[string]any{"pattern": `needle`, "session_ids": []string{ids[0]}}, &found)
	if found.Count != 2 || !found.Complete {
		t.Errorf("search in %s: %+v", ids[0], found)
	}
	// delete_session removes the transcript as well.
	c.call("delete_session", map[string]any{"session_id": ids[0]}, nil)
	c.call("search_output", map[string]any{"pattern": `needle first`}, &found)
	if found.Count != 0 {
		t.Errorf("deleted session still searchable: %+v", found.Matches)
	}
	if msg := c.toolError("get_history", map[string]any{"session_id": ids[0]}); !strings.Contains(msg, "not found") {
		t.Errorf("history of deleted session: %q", msg)
	}
	if msg := c.toolError("search_output", map[string]any{"pattern": "x", "since": "yesterday"}); !strings.Contains(msg, "RFC 3339") {
		t.Errorf("bad since: %q", msg)
	}
}

func TestReadOutput_OlderThanMemoryComesFromStore(t *testing.T) {
	// Memory keeps 64 KiB; the program prints ~1.1 MB.
	c, _ := newStoreClient(t, t.TempDir(), session.Config{OutputLimit: 64 << 10}, nil)
	r := c.start(map[string]any{"argv": []string{"seq", "1", "160000"}, "mode": "pipe", "timeout_ms": 30000, "settle_ms": 0, "max_bytes": 1, "overflow": "page"})
	if r.State != "exited" {
		t.Fatalf("seq did not finish: %+v", r)
	}
	var info InfoResult
	c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
	if info.Evicted != 0 || info.Retained != info.Bytes {
		t.Errorf("info: evicted %d retained %d of %d; want nothing evicted with the store", info.Evicted, info.Retained, info.Bytes)
	}
	var got strings.Builder
	cursor := int64(0)
	for {
		var rr ReadResult
		c.call("read_output", map[string]any{"session_id": r.SessionID, "cursor": cursor, "overflow": "page", "max_bytes": 100000, "timeout_ms": 0}, &rr)
		if rr.LostBytes != 0 {
			t.Fatalf("read from %d lost %d bytes", cursor, rr.LostBytes)
		}
		got.WriteString(rr.Output)
		if rr.Cursor == cursor {
			break
		}
		cursor = rr.Cursor
	}
	var want strings.Builder
	for i := 1; i <= 160000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if got.String() != want.String() {
		t.Fatalf("read %d bytes through read_output, want %d identical", got.Len(), want.Len())
	}
	// since_line far in the past also resolves from disk.
	var rr ReadResult
	c.call("read_output", map[string]any{"session_id": r.SessionID, "since_line": 99, "max_lines": 2, "overflow": "page", "timeout_ms": 0}, &rr)
	if rr.Output != "100\n101\n" {
		t.Errorf("since_line 99: %q", rr.Output)
	}
}

func TestTranscript_ResizeRecorded(t *testing.T) {
	c, _ := newStoreClient(t, t.TempDir(), session.Config{}, nil)
	r := c.start(map[string]any{"argv": []string{"cat"}, "timeout_ms": 0})
	c.call("resize_pty", map[string]any{"session_id": r.SessionID, "rows": 30, "cols": 100}, nil)
	c.call("terminate_process", map[string]any{"session_id": r.SessionID, "force": true}, nil)
	var msgs ListMessagesResult
	c.call("list_messages", map[string]any{"session_id": r.SessionID, "types": []string{"event"}}, &msgs)
	var got []string
	for _, m := range msgs.Messages {
		got = append(got, m.Event+" "+m.Content)
	}
	want := []string{"resize 100x30", "signal SIGKILL", "exit killed by SIGKILL"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", got, want)
	}
}
