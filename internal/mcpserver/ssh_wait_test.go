package mcpserver

import (
	"strings"
	"testing"
)

// TestSSH_AwaitingInputOnlyWhenReadingInput: a remote session is
// awaiting_input exactly when a process of it is blocked reading the
// session's input, as the remote kernel tells it, whatever else the
// program has open or waits in; and a timed wait on the input says so.
func TestSSH_AwaitingInputOnlyWhenReadingInput(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	// pyOther waits for a pipe the program made itself (fd 3), never
	// for its input (fd 0), in the given way.
	pyOther := func(wait string) []string {
		return []string{"python3", "-c", "import os, select; r, w = os.pipe(); print('ready', flush=True); " + wait}
	}
	for _, tc := range []struct {
		name   string
		args   map[string]any
		state  string // after the start's wait and after a later one
		detail string // contained in state_detail
	}{
		{"tail -f in pipe mode", map[string]any{"command": "cd \"$(mktemp -d)\" && echo ready > app.log && exec tail -f app.log", "mode": "pipe"},
			"running", "(tail) is blocked in poll, not on the input"},
		{"tail -f on a pty", map[string]any{"command": "cd \"$(mktemp -d)\" && echo ready > app.log && exec tail -f app.log"},
			"running", "(tail) is blocked in poll, not on the input"},
		{"sleep in pipe mode", map[string]any{"command": "echo ready; exec sleep 100", "mode": "pipe"},
			"running", "(sleep) is blocked in clock_nanosleep, not on the input"},
		{"select on another pipe", map[string]any{"argv": pyOther("select.select([r], [], [])"), "mode": "pipe"},
			"running", "(python3) is blocked in pselect6, not on the input"},
		{"poll on another pipe", map[string]any{"argv": pyOther("p = select.poll(); p.register(r, select.POLLIN); p.poll()"), "mode": "pipe"},
			"running", "(python3) is blocked in poll, not on the input"},
		{"poll on the input without POLLIN", map[string]any{"argv": pyOther("p = select.poll(); p.register(0, select.POLLPRI); p.poll()")},
			"running", "(python3) is blocked in poll, not on the input"},
		{"epoll on another pipe", map[string]any{"argv": pyOther("p = select.epoll(); p.register(r, select.EPOLLIN); p.poll()"), "mode": "pipe"},
			"running", "(python3) is blocked in epoll_wait, not on the input"},
		{"read of another pipe", map[string]any{"argv": pyOther("os.read(r, 1)"), "mode": "pipe"},
			"running", "nothing in process group"},
		{"cat in pipe mode", map[string]any{"command": "echo ready; exec cat", "mode": "pipe"},
			"awaiting_input", "(cat) in read on fd 0 (pipe)"},
		{"cat on a pty", map[string]any{"command": "echo ready; exec cat"},
			"awaiting_input", "(cat) in read on fd 0 (tty)"},
		{"python REPL on a pty", map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "},
			"awaiting_input", "(python3) in pselect6 on fd 0 (tty)"},
		{"select on the input with a timeout", map[string]any{"argv": pyOther("import sys; select.select([sys.stdin, r], [], [], 30)"), "mode": "pipe"},
			"awaiting_input", "(python3) in pselect6 on fd 0 (pipe) with a 30s timeout"},
		{"poll on the input with a timeout on a pty", map[string]any{"argv": pyOther("p = select.poll(); p.register(0, select.POLLIN); p.poll(25000)")},
			"awaiting_input", "(python3) in poll on fd 0 (tty) with a 25s timeout"},
		{"epoll on the input with a timeout", map[string]any{"argv": pyOther("p = select.epoll(); p.register(0, select.EPOLLIN); p.poll(20)"), "mode": "pipe"},
			"awaiting_input", "(python3) in epoll_wait on fd 0 (pipe) with a 20s timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["host"] = host
			if tc.args["until"] == nil {
				tc.args["until"] = "ready"
			}
			tc.args["timeout_ms"] = 10000
			r := c.start(tc.args)
			defer c.stop(r.SessionID)
			if r.Reason != "matched" {
				t.Fatalf("start: reason=%s output=%q detail=%q", r.Reason, r.Output, r.StateDetail)
			}
			// A program that waits for input ends the wait; one that does
			// not lets it run out. Either way the state must be tc.state.
			var rr ReadResult
			c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 1500}, &rr)
			wantReason := "timeout"
			if tc.state != "running" {
				wantReason = tc.state
			}
			if rr.Reason != wantReason || rr.State != tc.state || !strings.Contains(rr.StateDetail, tc.detail) {
				t.Fatalf("read: reason=%s state=%s detail=%q; want %s, %s, detail containing %q",
					rr.Reason, rr.State, rr.StateDetail, wantReason, tc.state, tc.detail)
			}
			if !strings.HasSuffix(rr.StateDetail, "(remote /proc probe)") {
				t.Fatalf("detail %q does not name the remote probe", rr.StateDetail)
			}
		})
	}
}
