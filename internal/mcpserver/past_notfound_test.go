package mcpserver

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store/storetest"
)

// TestPastSessions_NotFoundSaysWhatItIs: a session list_sessions shows but
// this server does not run (another server's live one, an ended or a lost
// one) is named for what it is, with the tools that work on it.
func TestPastSessions_NotFoundSaysWhatItIs(t *testing.T) {
	dir := t.TempDir()
	a, stA := newStoreClient(t, dir, session.Config{}, nil)
	running := a.start(map[string]any{"argv": []string{"sleep", "100"}, "timeout_ms": 0})
	ended := a.start(map[string]any{"command": "exit 3", "mode": "pipe"})
	if ended.State != "exited" {
		t.Fatalf("ended: %+v", ended)
	}
	// The running session belongs to another live server: here a process
	// standing in for it (a server's own pid counts as a restart).
	other := exec.Command("sleep", "100")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	pid := other.Process.Pid
	storetest.SetOwner(t, dir, running.SessionID, pid, storetest.ProcStart(t, pid))
	// Records are queued; a second server sees what the first committed.
	if !stA.Sync(10 * time.Second) {
		t.Fatal("first server's store did not commit in 10s")
	}
	b, _ := newStoreClient(t, dir, session.Config{}, nil)
	var list ListResult
	b.call("list_sessions", map[string]any{}, &list)
	if list.Count != 2 {
		t.Fatalf("list_sessions on the second server: %+v", list.Sessions)
	}
	common := []string{"is a recorded session, not one this server runs", "get_history, search_output and list_messages", "start_process"}
	for _, tc := range []struct {
		tool string
		id   string
		want string
	}{
		{"send_input", running.SessionID, fmt.Sprintf("it is running under agentty pid %d, another server sharing this transcript store", pid)},
		{"terminate_process", running.SessionID, "only that server can send it input, read it live or stop it"},
		{"read_output", ended.SessionID, fmt.Sprintf("it exited with code 3 (recorded by agentty pid %d", os.Getpid())},
		{"read_screen", ended.SessionID, "delete_session removes it"},
	} {
		args := map[string]any{"session_id": tc.id}
		if tc.tool == "send_input" {
			args["text"] = "x"
		}
		msg := b.toolError(tc.tool, args)
		for _, want := range append([]string{"session " + tc.id + " ", tc.want}, common...) {
			if !strings.Contains(msg, want) {
				t.Errorf("%s %s: %q does not say %q", tc.tool, tc.id, msg, want)
			}
		}
	}

	// A server that stopped without recording the end leaves the session lost.
	storetest.SetOwner(t, dir, running.SessionID, 1<<30, 1)
	c, _ := newStoreClient(t, dir, session.Config{}, nil)
	msg := c.toolError("send_input", map[string]any{"session_id": running.SessionID, "text": "x"})
	want := fmt.Sprintf("it is lost: agentty (pid %d) stopped without recording the exit", 1<<30)
	if !strings.Contains(msg, want) || !strings.Contains(msg, "delete_session removes it") {
		t.Errorf("lost session: %q does not say %q", msg, want)
	}
	// An id no one knows keeps the plain message.
	if msg := c.toolError("read_output", map[string]any{"session_id": "s999"}); !strings.Contains(msg, `session not found: "s999"; call list_sessions`) {
		t.Errorf("unknown id: %q", msg)
	}
}
