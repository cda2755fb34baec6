package httpserver

import (
	"context"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/mcpserver"
)

// catSession starts `cat` on pipes: every line sent comes back exactly once.
func catSession(c *client) string {
	c.t.Helper()
	var r mcpserver.StartResult
	c.call("start_process", map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0}, &r)
	return r.SessionID
}

// send types line into cat and returns the reply read from reader 0.
func send(c *client, id, line string) mcpserver.SendResult {
	c.t.Helper()
	var r mcpserver.SendResult
	c.call("send_input", map[string]any{"session_id": id, "text": line, "enter": true, "until": "(?m)^" + line + "$", "settle_ms": 0}, &r)
	return r
}

func TestSharedSession_TwoClients(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := startServer(t, nil)
			a := s.connect(t, tr, clientOpts{})
			b := s.connect(t, tr, clientOpts{})

			id := catSession(a)
			if got := send(a, id, "first").Output; got != "first\n" {
				t.Fatalf("A's reply = %q, want %q", got, "first\n")
			}
			if got := send(a, id, "second").Output; got != "second\n" {
				t.Fatalf("A's reply = %q, want %q", got, "second\n")
			}

			// B sees the session A started and attaches its own reader.
			var list mcpserver.ListResult
			b.call("list_sessions", nil, &list)
			if list.Count != 1 || list.Sessions[0].ID != id {
				t.Fatalf("B lists %+v, want exactly session %s", list.Sessions, id)
			}
			var reg mcpserver.ReaderResult
			b.call("register_reader", map[string]any{"session_id": id}, &reg)
			var br mcpserver.ReadResult
			b.call("read_output", map[string]any{"session_id": id, "reader_id": reg.ReaderID, "timeout_ms": 0}, &br)
			if br.Output != "first\nsecond\n" || br.Cursor != 13 {
				t.Fatalf("B's reader got %q (cursor %d), want the whole output %q (cursor 13)", br.Output, br.Cursor, "first\nsecond\n")
			}

			// A's cursor did not move: nothing new for A, and B drives too.
			var ar mcpserver.ReadResult
			a.call("read_output", map[string]any{"session_id": id, "timeout_ms": 0}, &ar)
			if ar.Output != "" || ar.Cursor != 13 {
				t.Fatalf("A read %q at cursor %d after B's read, want nothing new at 13", ar.Output, ar.Cursor)
			}
			if got := send(b, id, "from-b").Output; got != "from-b\n" {
				t.Fatalf("B's reply on reader 0 = %q", got)
			}
			b.call("read_output", map[string]any{"session_id": id, "reader_id": reg.ReaderID, "timeout_ms": 0}, &br)
			if br.Output != "from-b\n" {
				t.Fatalf("B's own reader got %q, want %q", br.Output, "from-b\n")
			}
		})
	}
}

func TestReconnect_KeepsSessionAndCursor(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := startServer(t, nil)
			a := s.connect(t, tr, clientOpts{})
			id := catSession(a)
			var reg mcpserver.ReaderResult
			a.call("register_reader", map[string]any{"session_id": id}, &reg)
			send(a, id, "before")
			var r mcpserver.ReadResult
			a.call("read_output", map[string]any{"session_id": id, "reader_id": reg.ReaderID, "timeout_ms": 0}, &r)
			if r.Output != "before\n" {
				t.Fatalf("A's reader got %q", r.Output)
			}
			if err := a.cs.Close(); err != nil {
				t.Logf("close: %v", err)
			}

			// Someone else drives while A is away.
			b := s.connect(t, tr, clientOpts{})
			send(b, id, "while-away")

			a2 := s.connect(t, tr, clientOpts{})
			var info mcpserver.InfoResult
			a2.call("get_session_info", map[string]any{"session_id": id}, &info)
			if info.State == "exited" {
				t.Fatalf("session ended with its client: %+v", info)
			}
			a2.call("read_output", map[string]any{"session_id": id, "reader_id": reg.ReaderID, "timeout_ms": 0}, &r)
			if r.Output != "while-away\n" || r.Cursor != int64(len("before\nwhile-away\n")) {
				t.Fatalf("after reconnecting A's reader got %q at %d, want exactly what came while away", r.Output, r.Cursor)
			}
		})
	}
}

// A client whose network dies mid-wait must not hold that wait (and a
// server goroutine) until its timeout; other clients keep working meanwhile.
func TestDisconnect_FreesWait(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := startServer(t, nil)
			other := s.connect(t, tr, clientOpts{})
			id := catSession(other)
			var busy mcpserver.StartResult // running and silent: a wait on it only ends by timeout
			other.call("start_process", map[string]any{"argv": []string{"sleep", "600"}, "mode": "pipe", "timeout_ms": 0}, &busy)

			var dialer connTracker
			a := s.connect(t, tr, clientOpts{dialer: &dialer})
			waitDone := make(chan error, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				_, err := a.cs.CallTool(ctx, mcpParams("read_output", map[string]any{"session_id": busy.SessionID, "timeout_ms": 60000, "settle_ms": 0, "until": "never-printed"}))
				waitDone <- err
			}()
			s.waitHealth(t, 30*time.Second, "the wait is in flight", func(h Health) bool {
				select {
				case err := <-waitDone:
					t.Fatalf("the wait ended before the disconnect: %v", err)
				default:
				}
				return h.CallsInFlight == 1
			})

			// A blocked wait blocks nobody else: not the same client's other
			// tools, not other clients.
			var list mcpserver.ListResult
			a.call("list_sessions", nil, &list)
			if list.Count != 2 {
				t.Fatalf("list_sessions during the wait: %d sessions, want 2", list.Count)
			}
			if got := send(other, id, "still-works").Output; got != "still-works\n" {
				t.Fatalf("other client's reply = %q", got)
			}

			start := time.Now()
			dialer.cut()
			// Well under the wait's own 60 s: freed by the disconnect.
			s.waitHealth(t, 20*time.Second, "the wait was freed", func(h Health) bool { return h.CallsInFlight == 0 })
			t.Logf("wait freed %v after the disconnect", time.Since(start).Round(time.Millisecond))
			<-waitDone
		})
	}
}
