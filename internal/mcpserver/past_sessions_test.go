package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

func TestPastSessions_ListInfoHistoryDelete(t *testing.T) {
	dir := t.TempDir()
	// A first server runs a session to its end and shuts down cleanly.
	first, firstStore := newStoreClient(t, dir, session.Config{}, nil)
	r := first.start(map[string]any{"command": "echo 'from the first run'; exit 3", "mode": "pipe"})
	if r.State != "exited" {
		t.Fatalf("first session: %+v", r)
	}
	before := time.Now()
	first.cs.Close()
	first.mgr.Close()
	if err := firstStore.Close(); err != nil {
		t.Fatal(err)
	}

	c, st := newStoreClient(t, dir, session.Config{}, nil)
	now := c.start(map[string]any{"command": "echo now", "mode": "pipe"})
	if now.SessionID == r.SessionID {
		t.Fatalf("id %s reused", now.SessionID)
	}
	var list ListResult
	c.call("list_sessions", map[string]any{}, &list)
	if list.Count != 2 || list.Sessions[0].ID != r.SessionID || list.Sessions[0].State != "exited" ||
		list.Sessions[0].ExitCode == nil || *list.Sessions[0].ExitCode != 3 {
		t.Fatalf("list_sessions: %+v; want the past session (exited, code 3) first, then the live one", list.Sessions)
	}
	c.call("list_sessions", map[string]any{"since": before.Format(time.RFC3339Nano)}, &list)
	if list.Count != 1 || list.Sessions[0].ID != now.SessionID {
		t.Errorf("list_sessions since the restart: %+v", list.Sessions)
	}
	c.call("list_sessions", map[string]any{"include_exited": false}, &list)
	if list.Count != 0 {
		t.Errorf("include_exited=false lists %+v", list.Sessions)
	}
	var info InfoResult
	c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
	if info.Command != "echo 'from the first run'; exit 3" || info.Bytes != int64(len("from the first run\n")) {
		t.Errorf("get_session_info of the past session: %+v", info.SessionInfo)
	}
	var h HistoryResult
	c.call("get_history", map[string]any{"session_id": r.SessionID}, &h)
	if len(h.Lines) != 1 || h.Lines[0].Text != "from the first run" {
		t.Errorf("history of the past session: %+v", h.Lines)
	}
	c.call("delete_session", map[string]any{"session_id": r.SessionID}, nil)
	if msg := c.toolError("get_session_info", map[string]any{"session_id": r.SessionID}); !strings.Contains(msg, "not found") {
		t.Errorf("info after delete: %q", msg)
	}
	if recs, err := st.Sessions(time.Time{}, 0); err != nil || len(recs) != 1 {
		t.Errorf("store after delete: %d sessions, %v", len(recs), err)
	}
	if msg := c.toolError("delete_session", map[string]any{"session_id": r.SessionID}); !strings.Contains(msg, "not found") {
		t.Errorf("second delete: %q", msg)
	}
}
