package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/toolcall"
)

func TestWaitSessions_FirstOfSeveral(t *testing.T) {
	c := newClient(t, session.Config{})
	start := func(cmd string) string {
		return c.start(map[string]any{"command": cmd, "timeout_ms": 0}).SessionID
	}
	t.Run("the second exits first", func(t *testing.T) {
		a, b, d := start("sleep 30"), start("sleep 0.3; echo build done; exit 3"), start("sleep 30")
		var r WaitSessionsResult
		c.call("wait_sessions", map[string]any{"session_ids": []string{a, b, d}, "timeout_ms": 20000}, &r)
		if r.SessionID != b || r.Reason != "exited" || r.ExitCode == nil || *r.ExitCode != 3 || !strings.Contains(r.Output, "build done") {
			t.Fatalf("got %s reason=%s code=%v output %q, want %s exited 3 with its output", r.SessionID, r.Reason, r.ExitCode, r.Output, b)
		}
		if len(r.Others) != 2 || r.Others[0].SessionID != a || r.Others[1].SessionID != d || r.Others[0].State != "running" || r.Others[1].State != "running" {
			t.Fatalf("others %+v, want %s and %s running", r.Others, a, d)
		}
		// The exit was read: waiting again does not return it, the others time out.
		c.call("wait_sessions", map[string]any{"session_ids": []string{a, b, d}, "timeout_ms": 200}, &r)
		if r.SessionID != "" || r.Reason != "timeout" || len(r.Others) != 3 {
			t.Fatalf("second wait: %s reason=%s others %d, want a timeout over all three", r.SessionID, r.Reason, len(r.Others))
		}
	})
	t.Run("until matches in one", func(t *testing.T) {
		a, b := start("sleep 30"), start("for i in 1 2 3; do echo tick $i; sleep 0.1; done; sleep 30")
		var r WaitSessionsResult
		c.call("wait_sessions", map[string]any{"session_ids": []string{a, b}, "until": "tick 3", "timeout_ms": 20000}, &r)
		if r.SessionID != b || r.Reason != "matched" || r.Match != "tick 3" || !strings.Contains(r.Output, "tick 3") {
			t.Fatalf("got %s reason=%s match=%q output %q", r.SessionID, r.Reason, r.Match, r.Output)
		}
	})
	t.Run("listening", func(t *testing.T) {
		a := start("sleep 30")
		b := start("sleep 0.2; exec python3 -c 'import socket,time; s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(); time.sleep(60)'")
		var r WaitSessionsResult
		c.call("wait_sessions", map[string]any{"session_ids": []string{a, b}, "until_listening": true, "timeout_ms": 20000}, &r)
		if r.SessionID != b || r.Reason != "listening" || len(r.Listening) != 1 || r.Listening[0].Port == 0 {
			t.Fatalf("got %s reason=%s listening %+v", r.SessionID, r.Reason, r.Listening)
		}
		dial(t, r.Listening[0])
	})
	t.Run("bad arguments", func(t *testing.T) {
		a := start("sleep 30")
		for _, tc := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"session_ids": []string{}}, "session_ids must name 1 to 32"},
			{map[string]any{"session_ids": []string{a, a}}, "named twice"},
			{map[string]any{"session_ids": []string{a, "nope"}}, "nope"},
		} {
			if msg := c.toolError("wait_sessions", tc.args); !strings.Contains(msg, tc.want) {
				t.Errorf("%v: %q, want %q", tc.args, msg, tc.want)
			}
		}
	})
	t.Run("cancellation frees it", func(t *testing.T) {
		a, b := start("sleep 30"), start("sleep 30")
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		began := time.Now()
		_, err := toolcall.Call(ctx, c.cs, "wait_sessions", map[string]any{"session_ids": []string{a, b}, "timeout_ms": 60000}, nil)
		if err == nil || time.Since(began) > 10*time.Second {
			t.Fatalf("cancelled call: err %v after %v", err, time.Since(began))
		}
		// The server is free: a new wait on the same sessions answers.
		var r WaitSessionsResult
		c.call("wait_sessions", map[string]any{"session_ids": []string{a, b}, "timeout_ms": 100}, &r)
		if r.Reason != "timeout" {
			t.Fatalf("after cancel: reason %s", r.Reason)
		}
	})
}
