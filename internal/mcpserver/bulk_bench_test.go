package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// BenchmarkReadOutput_Page4MiB reads the same ≈4 MiB page of a pipe
// session's retained output again and again (explicit cursor, overflow
// page) and reports the reply's size as JSON (reply_bytes): the cost of a
// bulk read over the in-memory transport.
func BenchmarkReadOutput_Page4MiB(b *testing.B) {
	const page = 4_000_000 // escaped newlines keep it under 4 MiB as JSON
	c := newClient(b, session.Config{OutputLimit: 64 << 20})
	var st StartResult
	// 64-byte lines: 63 letters and a newline.
	c.call("start_process", map[string]any{"command": "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 8388608",
		"mode": "pipe", "return_on": []string{"exit"}, "timeout_ms": 60000, "max_bytes": 1}, &st)
	if st.State != "exited" {
		b.Fatalf("start: state %s, want exited", st.State)
	}
	var size int
	for b.Loop() {
		var r ReadResult
		res := c.call("read_output", map[string]any{"session_id": st.SessionID, "cursor": 0, "max_bytes": page, "overflow": "page", "timeout_ms": 0}, &r)
		if len(r.Output) < page-64 || len(r.Output) > page {
			b.Fatalf("page of %d bytes, want %d", len(r.Output), page)
		}
		if size == 0 {
			j, _ := json.Marshal(res)
			size = len(j)
		}
	}
	b.ReportMetric(float64(size), "reply_bytes")
}
