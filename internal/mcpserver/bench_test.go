package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

// benchClient connects an in-memory MCP client to a fresh server. It does
// what newClient (harness_test.go) does, for a *testing.B: newClient takes a
// *testing.T.
func benchClient(b *testing.B, cfg session.Config) *mcp.ClientSession {
	b.Helper()
	mgr := session.NewManager(cfg)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := New(mgr, nil).Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		ss.Wait()
		mgr.Close()
	})
	return cs
}

// benchCall runs a tool that must succeed and decodes its structured result.
func benchCall(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		b.Fatalf("%s(%v): %v", name, args, err)
	}
	if res.IsError {
		b.Fatalf("%s(%v): tool error: %s", name, args, text(res))
	}
	if out != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkREPLRoundTrip measures one send_input round trip to a python3
// REPL on a PTY: type a line, get back exactly its value and the next
// prompt. The MCP transport is in memory, so this is the server's own cost
// plus python's, without JSON over stdio.
func BenchmarkREPLRoundTrip(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed")
	}
	cs := benchClient(b, session.Config{})
	var st StartResult
	benchCall(b, cs, "start_process", map[string]any{"argv": []string{"python3", "-q"}}, &st)
	if st.Reason != "awaiting_input" || st.Output != ">>> " {
		b.Fatalf("start: %q reason=%s", st.Output, st.Reason)
	}
	i := 0
	for b.Loop() {
		i++
		var r SendResult
		benchCall(b, cs, "send_input", map[string]any{"session_id": st.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &r)
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
	cs := benchClient(b, session.Config{})
	b.SetBytes(size)
	for b.Loop() {
		var st StartResult
		benchCall(b, cs, "start_process", map[string]any{"command": "head -c 64M /dev/zero", "mode": "pipe", "timeout_ms": 0}, &st)
		for {
			// One byte per call: the benchmark is about ingest, not about
			// moving output to the client.
			var r ReadResult
			benchCall(b, cs, "read_output", map[string]any{"session_id": st.SessionID, "timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1, "overflow": "page"}, &r)
			if r.State == "exited" {
				break
			}
			if r.Reason != "timeout" {
				b.Fatalf("read_output: reason=%s state=%s, want exited", r.Reason, r.State)
			}
		}
		var info InfoResult
		benchCall(b, cs, "get_session_info", map[string]any{"session_id": st.SessionID}, &info)
		if info.Bytes != size || info.ExitCode == nil || *info.ExitCode != 0 {
			b.Fatalf("session counted %d bytes, exit %v; want %d bytes, exit 0", info.Bytes, info.ExitCode, size)
		}
		benchCall(b, cs, "delete_session", map[string]any{"session_id": st.SessionID}, nil)
	}
}
