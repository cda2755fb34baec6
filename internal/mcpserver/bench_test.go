package mcpserver

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// BenchmarkREPLRoundTrip measures one send_input round trip to a python3
// REPL on a PTY: type a line, get back exactly its value and the next
// prompt. The MCP transport is in memory, so this is the server's own cost
// plus python's, without JSON over stdio.
func BenchmarkREPLRoundTrip(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed")
	}
	c := newClient(b, session.Config{})
	var st StartResult
	c.call("start_process", map[string]any{"argv": []string{"python3", "-q"}}, &st)
	if st.Reason != "awaiting_input" || st.Output != ">>> " {
		b.Fatalf("start: %q reason=%s", st.Output, st.Reason)
	}
	i := 0
	for b.Loop() {
		i++
		var r SendResult
		c.call("send_input", map[string]any{"session_id": st.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &r)
		if want := strconv.Itoa(i*7) + "\n>>> "; r.Output != want || r.Reason != "awaiting_input" {
			b.Fatalf("reply %d: %q reason=%s, want %q awaiting_input", i, r.Output, r.Reason, want)
		}
	}
}

// BenchmarkPipeIngest measures how fast a pipe-mode session takes in
// output: from start_process until the session is reported exited with all
// 64 MiB counted.
func BenchmarkPipeIngest(b *testing.B) {
	const size = 64 << 20
	c := newClient(b, session.Config{})
	b.SetBytes(size)
	for b.Loop() {
		var st StartResult
		c.call("start_process", map[string]any{"command": "head -c 64M /dev/zero", "mode": "pipe", "timeout_ms": 0}, &st)
		for {
			// One byte per call: the benchmark is about ingest, not about
			// moving output to the client.
			var r ReadResult
			c.call("read_output", map[string]any{"session_id": st.SessionID, "timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1, "overflow": "page"}, &r)
			if r.State == "exited" {
				break
			}
			if r.Reason != "timeout" {
				b.Fatalf("read_output: reason=%s state=%s, want exited", r.Reason, r.State)
			}
		}
		var info InfoResult
		c.call("get_session_info", map[string]any{"session_id": st.SessionID}, &info)
		if info.Bytes != size || info.ExitCode == nil || *info.ExitCode != 0 {
			b.Fatalf("session counted %d bytes, exit %v; want %d bytes, exit 0", info.Bytes, info.ExitCode, size)
		}
		c.call("delete_session", map[string]any{"session_id": st.SessionID}, nil)
	}
}
