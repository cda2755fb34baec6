//go:build linux

package main

import (
	"strings"
	"syscall"
	"testing"
)

// A daemon killed while the serve that spawned it is stopped stays that
// serve's zombie; the next serve's daemon shares its store and must take it
// for dead: its session is lost at once, and delete_session removes it.
func TestDaemon_KilledDaemonSessionsLost(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	s1 := h.serve(t, nil)
	var r readResult
	s1.call("start_process", map[string]any{"argv": []string{"sleep", "1000"}, "timeout_ms": 0}, &r)
	var l listed
	s1.call("list_sessions", map[string]any{}, &l) // commits the start to the store
	old := h.status(t).PID
	if got := parentPID(old); got != s1.cmd.Process.Pid {
		t.Fatalf("daemon %d has parent %d, want the serve %d that spawned it", old, got, s1.cmd.Process.Pid)
	}
	s1.killed = true // its daemon dies under it
	if err := syscall.Kill(s1.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(s1.cmd.Process.Pid, syscall.SIGCONT) })
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, old)
	if !isZombie(old) {
		t.Fatalf("daemon %d is not a zombie", old)
	}

	s2 := h.serve(t, nil)
	if now := h.status(t).PID; now == old {
		t.Fatalf("the new serve reached the killed daemon %d", old)
	}
	s2.call("list_sessions", map[string]any{}, &l)
	if got := l.state(r.SessionID); got != "lost" {
		t.Fatalf("list_sessions shows %s as %q, want lost: %+v", r.SessionID, got, l)
	}
	msg := s2.toolError("terminate_process", map[string]any{"session_id": r.SessionID})
	if !strings.Contains(msg, "is lost: agentty (pid ") {
		t.Errorf("terminate_process: %s\nwant it to say the session is lost", msg)
	}
	s2.call("delete_session", map[string]any{"session_id": r.SessionID}, nil)
	s2.call("list_sessions", map[string]any{}, &l)
	if got := l.state(r.SessionID); got != "" {
		t.Errorf("after delete_session, list_sessions still shows %s as %q", r.SessionID, got)
	}
}
