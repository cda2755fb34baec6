package main

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/store"
)

type historyLine struct {
	N    int64  `json:"n"`
	Text string `json:"text"`
}

type historyResult struct {
	Lines      []historyLine `json:"lines"`
	TotalLines int64         `json:"total_lines"`
	LostLines  int64         `json:"lost_lines"`
}

type sessionInfo struct {
	ID         string     `json:"session_id"`
	State      string     `json:"state"`
	LostAt     *time.Time `json:"lost_at"`
	LostReason string     `json:"lost_reason"`
	Bytes      int64      `json:"bytes"`
}

// checkCounting asserts lines read "line <n-1>" (the loop counts from 0);
// the very last line of a killed stream may be cut short.
func checkCounting(t *testing.T, h historyResult, allowPartialLast bool) {
	t.Helper()
	for i, ln := range h.Lines {
		want := fmt.Sprintf("line %d", ln.N-1)
		if ln.Text == want {
			continue
		}
		if allowPartialLast && i == len(h.Lines)-1 && ln.N == h.TotalLines && len(ln.Text) < len(want) && want[:len(ln.Text)] == ln.Text {
			continue
		}
		t.Fatalf("line %d = %q, want %q: the transcript has a hole or damage", ln.N, ln.Text, want)
	}
}

func TestServe_CrashKeepsTranscript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, "-data-dir", dir)
	var r readResult
	s.call("start_process", map[string]any{"argv": []string{"sh", "-c", `i=0; while :; do echo "line $i"; i=$((i+1)); done`},
		"mode": "pipe", "until": `^line 30000$`, "timeout_ms": 60000}, &r)
	if r.Reason != "matched" {
		t.Fatalf("stream did not reach line 30000: %+v", r)
	}
	// Mid-stream: the loop is still printing.
	s.killed = true
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.close()

	s2 := startServer(t, "-data-dir", dir)
	var list struct {
		Sessions []sessionInfo `json:"sessions"`
	}
	s2.call("list_sessions", map[string]any{}, &list)
	if len(list.Sessions) != 1 {
		t.Fatalf("sessions after restart: %+v, want the one from before", list.Sessions)
	}
	got := list.Sessions[0]
	if got.ID != r.SessionID || got.State != "lost" || got.LostAt == nil || got.LostReason == "" {
		t.Fatalf("after restart: %+v; want %s lost with lost_at and lost_reason", got, r.SessionID)
	}
	if time.Since(*got.LostAt) > 5*time.Minute || got.Bytes < int64(len("line 30000\n")*30000) {
		t.Errorf("lost_at %v, %d bytes recorded", got.LostAt, got.Bytes)
	}
	var head, tail historyResult
	s2.call("get_history", map[string]any{"session_id": r.SessionID, "start_line": 1, "lines": 10000, "max_bytes": 1 << 20}, &head)
	if len(head.Lines) != 10000 || head.LostLines != 0 {
		t.Fatalf("first 10000 lines: got %d, lost %d", len(head.Lines), head.LostLines)
	}
	checkCounting(t, head, false)
	s2.call("get_history", map[string]any{"session_id": r.SessionID, "lines": 10000, "max_bytes": 1 << 20}, &tail)
	if tail.TotalLines < 30001 || len(tail.Lines) != 10000 {
		t.Fatalf("last lines: total %d, got %d", tail.TotalLines, len(tail.Lines))
	}
	checkCounting(t, tail, true)
	// A grep over the whole transcript finds exactly one "line 12345".
	var g struct {
		Matches int `json:"matches"`
	}
	s2.call("get_history", map[string]any{"session_id": r.SessionID, "grep": `^line 12345$`}, &g)
	if g.Matches != 1 {
		t.Errorf("grep line 12345: %d matches", g.Matches)
	}
	// A new session gets a fresh id: ids are never reused.
	var r2 readResult
	s2.call("start_process", map[string]any{"argv": []string{"true"}, "mode": "pipe"}, &r2)
	if r2.SessionID == r.SessionID {
		t.Errorf("new session reused id %s", r2.SessionID)
	}
	s2.close()
	st, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
}
