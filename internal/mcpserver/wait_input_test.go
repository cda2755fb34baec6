package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// TestSendInput_WaitEndsOnEventsAfterInput: output nobody read before the
// input is returned in front of the reply, but neither it nor its match nor
// its quiet ends the wait; the echo of a typed line is left out even when
// it lands in a later read, without joining the prompt before it to the
// reply.
func TestSendInput_WaitEndsOnEventsAfterInput(t *testing.T) {
	need(t, "python3")
	for _, mode := range []struct {
		name  string
		start map[string]any
	}{
		{"pty", map[string]any{"argv": []string{"python3", "-q"}}},
		{"pipe", map[string]any{"argv": []string{"python3", "-i", "-q"}, "mode": "pipe", "merge_stderr": true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			c := newClient(t, session.Config{})
			st := c.start(mode.start)
			defer c.stop(st.SessionID)
			if st.Output != ">>> " || st.Reason != "awaiting_input" {
				t.Fatalf("start: %q reason=%s", st.Output, st.Reason)
			}
			cursor := st.Cursor
			for i := range 50 {
				a, b := 2*i+1, 2*i+2
				// Typed without waiting: the reply stays unread (all of it,
				// unless the program was faster than the read).
				s := c.send(st.SessionID, map[string]any{"text": fmt.Sprintf("print(%d)", a), "enter": true, "timeout_ms": 0})
				old := strings.TrimPrefix(fmt.Sprintf("%d\n>>> ", a), s.Output)
				c.unreadUntil(st.SessionID, cursor, fmt.Sprintf(`(?m)^%d\n>>> `, a))
				// The old reply holds a prompt: until must match the new one.
				s2 := c.send(st.SessionID, map[string]any{"text": fmt.Sprintf("print(%d)", b), "enter": true, "until": ">>> ", "timeout_ms": 20000})
				if want := fmt.Sprintf("%s%d\n>>> ", unreadBefore(mode.name, s.Output, old), b); s2.Output != want || s2.Reason != "matched" {
					t.Fatalf("round %d: output %q reason %s, want %q matched", i, s2.Output, s2.Reason, want)
				}
				cursor = s2.Cursor
			}
		})
	}
	// Old output that is already quiet does not settle a wait that follows
	// input. In pipe mode no echo starts the settle clock, so 1 ms of
	// quiet can only come from the old output.
	t.Run("pipe settle", func(t *testing.T) {
		c := newClient(t, session.Config{})
		st := c.start(map[string]any{"argv": []string{"python3", "-i", "-q"}, "mode": "pipe", "merge_stderr": true})
		defer c.stop(st.SessionID)
		cursor := st.Cursor
		for i := range 50 {
			a, b := 2*i+1, 2*i+2
			s := c.send(st.SessionID, map[string]any{"text": fmt.Sprintf("print(%d)", a), "enter": true, "timeout_ms": 0})
			old := strings.TrimPrefix(fmt.Sprintf("%d\n>>> ", a), s.Output)
			c.unreadUntil(st.SessionID, cursor, fmt.Sprintf(`(?m)^%d\n>>> `, a))
			// The reply in one write: print writes its text and its end
			// apart, and with PYTHONUNBUFFERED set (as on some machines)
			// a loaded machine can pause between the two writes for
			// longer than the settle.
			s = c.send(st.SessionID, map[string]any{"text": fmt.Sprintf(`print("%d\n", end="")`, b), "enter": true, "until": fmt.Sprintf(`\b%d\n`, b), "settle_ms": 1, "timeout_ms": 20000})
			if want := fmt.Sprintf("%s%d\n", old, b); !strings.HasPrefix(s.Output, want) || s.Reason != "matched" {
				t.Fatalf("round %d: output %q reason %s, want %q... matched", i, s.Output, s.Reason, want)
			}
			var r ReadResult
			c.call("read_output", map[string]any{"session_id": st.SessionID, "until": ">>> $", "settle_ms": 0, "timeout_ms": 20000}, &r)
			cursor = r.Cursor
		}
	})
}

// unreadBefore is what a reply shows of old, the part of the previous
// reply ("A\n>>> ") its read had not returned, once the echo of the next
// typed line, which follows it, is left out. On a terminal the prompt keeps
// its line; the rest of a prompt whose start was returned (got ends
// inside it) goes with the echo. On pipes nothing is echoed.
func unreadBefore(mode, got, old string) string {
	switch {
	case mode == "pipe" || old == "":
		return old
	case strings.Contains(old, "\n") || got == "" || strings.HasSuffix(got, "\n"):
		return old + "\n"
	}
	return ""
}

// unreadUntil waits until the output after cursor matches re, without
// moving the reader's cursor.
func (c *client) unreadUntil(id string, cursor int64, re string) {
	c.t.Helper()
	var r ReadResult
	c.call("read_output", map[string]any{"session_id": id, "cursor": cursor, "until": re, "settle_ms": 0, "timeout_ms": 20000}, &r)
	if r.Reason != "matched" {
		c.t.Fatalf("waiting for %q: reason %s, output %q", re, r.Reason, r.Output)
	}
}

// TestWait_ReturnOn: return_on chooses the events that end a wait, the
// same way in every waiting tool.
func TestWait_ReturnOn(t *testing.T) {
	need(t, "python3", "vim")
	// A timed read of the terminal, then output: awaiting input is true at
	// first, but the program goes on by itself.
	timed := []string{"python3", "-c", `import select, sys, time
select.select([sys.stdin], [], [], 0.3)
print("gamma", flush=True)
time.sleep(60)`}
	t.Run("read_output until waits past input", func(t *testing.T) {
		c := newClient(t, session.Config{})
		st := c.start(map[string]any{"argv": timed, "timeout_ms": 0})
		defer c.stop(st.SessionID)
		var r ReadResult
		c.call("read_output", map[string]any{"session_id": st.SessionID, "until": "gamma", "return_on": []string{"match"}, "timeout_ms": 20000}, &r)
		if r.Reason != "matched" || !strings.HasPrefix(r.Output, "gamma") {
			t.Fatalf("reason %s output %q, want matched gamma", r.Reason, r.Output)
		}
	})
	t.Run("read_screen until waits past input", func(t *testing.T) {
		c := newClient(t, session.Config{})
		st := c.start(with(size, "argv", timed, "timeout_ms", 0))
		defer c.stop(st.SessionID)
		r := c.screen(st.SessionID, map[string]any{"until": "gamma", "return_on": []string{"match", "exit"}, "timeout_ms": 20000})
		if r.Reason != "matched" || strings.Join(r.Lines, "\n") != "gamma" {
			t.Fatalf("reason %s screen %q, want matched gamma", r.Reason, r.Lines)
		}
	})
	t.Run("send_input waits for exit", func(t *testing.T) {
		c := newClient(t, session.Config{})
		for i := range 5 {
			file := filepath.Join(t.TempDir(), "f.txt")
			st := c.start(with(size, "argv", []string{"vim", "-Nu", "NONE", "-i", "NONE", "-n", file}, "timeout_ms", 20000))
			c.screen(st.SessionID, map[string]any{"until": `f\.txt`, "timeout_ms": 20000})
			c.send(st.SessionID, map[string]any{"text": "ihello", "keys": []string{"escape"}, "timeout_ms": 0})
			s := c.send(st.SessionID, map[string]any{"text": ":wq", "enter": true, "return_on": []string{"exit"}, "timeout_ms": 20000})
			if s.Reason != "exited" || s.ExitCode == nil || *s.ExitCode != 0 {
				t.Fatalf("round %d: reason %s state %s code %v, want exited 0", i, s.Reason, s.State, s.ExitCode)
			}
			if got, err := os.ReadFile(file); err != nil || string(got) != "hello\n" {
				t.Fatalf("round %d: file %q %v", i, got, err)
			}
		}
	})
	t.Run("exec_command waits past input", func(t *testing.T) {
		c := newClient(t, session.Config{})
		sh := c.openShell(map[string]any{"shell": "bash"})
		defer c.stop(sh.SessionID)
		r := c.exec(sh.SessionID, "read x; echo got $x", map[string]any{"timeout_ms": 300, "return_on": []string{"exit"}})
		if r.State != "running" || !r.TimedOut {
			t.Fatalf("state %s timed_out %v, want running after the timeout", r.State, r.TimedOut)
		}
		c.send(sh.SessionID, map[string]any{"text": "hi", "enter": true, "timeout_ms": 0})
		var a ExecResult
		c.call("await_command", map[string]any{"session_id": sh.SessionID, "timeout_ms": 20000}, &a)
		if a.State != "done" || a.Output != "got hi\n" {
			t.Fatalf("await: state %s output %q", a.State, a.Output)
		}
		r = c.exec(sh.SessionID, "read x", nil)
		if r.State != "awaiting_input" {
			t.Fatalf("default return_on: state %s, want awaiting_input", r.State)
		}
	})
	t.Run("bad values", func(t *testing.T) {
		c := newClient(t, session.Config{})
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"read_output", map[string]any{"return_on": []string{"output"}}, `unknown event "output"`},
			{"read_output", map[string]any{"until": "x", "return_on": []string{"exit"}}, "leaves out match"},
			{"read_screen", map[string]any{"settle_ms": 100, "return_on": []string{"input"}}, "leaves out settle"},
			{"exec_command", map[string]any{"command": "true", "return_on": []string{"settle"}}, "use input, exit"},
		} {
			var st OpenShellResult
			c.call("open_shell", map[string]any{"shell": "bash", "no_rc": true}, &st)
			args := with(tc.args, "session_id", st.SessionID)
			if msg := c.toolError(tc.tool, args); !strings.Contains(msg, tc.want) {
				t.Errorf("%s %v: %s, want %q", tc.tool, tc.args, msg, tc.want)
			}
			c.stop(st.SessionID)
		}
	})
}

// TestStart_SilentProgramSettles: a program that prints nothing and never
// reads settles like one that printed and went quiet.
func TestStart_SilentProgramSettles(t *testing.T) {
	c := newClient(t, session.Config{})
	st := c.start(map[string]any{"command": "sh -c 'sleep 1000 & sleep 1000'", "settle_ms": 200, "timeout_ms": 30000})
	defer c.stop(st.SessionID)
	if st.Reason != "settled" || st.State != "running" || st.Output != "" {
		t.Fatalf("reason %s state %s output %q, want settled running", st.Reason, st.State, st.Output)
	}
}

// TestState_TimedReadDetail: state_detail tells a read that waits for
// input from one that runs on after a timeout.
func TestState_TimedReadDetail(t *testing.T) {
	need(t, "python3")
	for _, tc := range []struct {
		name, code, want string
	}{
		{"select", `import select, sys; select.select([sys.stdin], [], [], 30)`, " on fd 0 (tty) with a 30s timeout"},
		{"poll", `import select, sys; p = select.poll(); p.register(0, select.POLLIN); p.poll(25000)`, " on fd 0 (tty) with a 25s timeout"},
		{"no timeout", `import select, sys; select.select([sys.stdin], [], [])`, " on fd 0 (tty)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, session.Config{})
			st := c.start(map[string]any{"argv": []string{"python3", "-c", tc.code}, "timeout_ms": 20000})
			defer c.stop(st.SessionID)
			if st.Reason != "awaiting_input" || !strings.HasSuffix(st.StateDetail, tc.want) {
				t.Fatalf("reason %s detail %q, want awaiting_input ending %q", st.Reason, st.StateDetail, tc.want)
			}
		})
	}
}
