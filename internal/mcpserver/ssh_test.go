package mcpserver

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestSSH_PythonREPL(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"pty", map[string]any{"argv": []string{"python3", "-q"}}},
		{"pipe", map[string]any{"argv": []string{"python3", "-i", "-q"}, "mode": "pipe", "merge_stderr": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.args["host"] = host
			r := c.start(tc.args)
			if r.Output != ">>> " || r.Reason != "awaiting_input" || r.State != "awaiting_input" {
				t.Fatalf("start: output=%q reason=%s state=%s detail=%q", r.Output, r.Reason, r.State, r.StateDetail)
			}
			if !strings.Contains(r.StateDetail, "remote /proc probe") || r.Host != e.srv.User+"@"+e.srv.Addr {
				t.Fatalf("detail=%q host=%q", r.StateDetail, r.Host)
			}
			for i := range 20 {
				var s SendResult
				c.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &s)
				want := fmt.Sprintf("%d\n>>> ", i*7)
				if s.Output != want || s.Reason != "awaiting_input" {
					t.Fatalf("round trip %d: output=%q reason=%s detail=%q, want %q awaiting_input", i, s.Output, s.Reason, s.StateDetail, want)
				}
			}
			var s SendResult
			c.call("send_input", map[string]any{"session_id": r.SessionID, "keys": []string{"ctrl+d"}}, &s)
			if s.State != "exited" || s.ExitCode == nil || *s.ExitCode != 0 {
				t.Fatalf("ctrl+d: state=%s code=%v output=%q", s.State, s.ExitCode, s.Output)
			}
		})
	}
}

func TestSSH_PromptsWithoutNewlineAndPassword(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	script := `read -p 'Continue? [y/N] ' a; echo "answer=$a"; read -s -p 'Password: ' pw; echo; echo "len=${#pw}"`
	r := c.start(map[string]any{"host": e.srv.Target(e.srv.Addr), "argv": []string{"bash", "--norc", "-c", script}})
	if r.Output != "Continue? [y/N] " || r.State != "awaiting_input" || r.Reason != "awaiting_input" {
		t.Fatalf("prompt: %q state=%s reason=%s detail=%q", r.Output, r.State, r.Reason, r.StateDetail)
	}
	var s SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "y", "enter": true}, &s)
	if s.Output != "answer=y\nPassword: " || s.State != "awaiting_password" || !strings.Contains(s.StateDetail, "echo off") {
		t.Fatalf("after answer: %q state=%s detail=%q", s.Output, s.State, s.StateDetail)
	}
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "hunter22", "enter": true}, &s)
	if strings.Contains(s.Output, "hunter22") {
		t.Fatalf("password echoed: %q", s.Output)
	}
	if s.Output != "\nlen=8\n" || s.State != "exited" || s.ExitCode == nil || *s.ExitCode != 0 {
		t.Fatalf("after password: %q state=%s code=%v", s.Output, s.State, s.ExitCode)
	}
}

func TestSSH_ExitStatusSignalsResize(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	tests := []struct {
		name, mode, cmd string
		keys            []string
		code            *int
		signal          string
	}{
		{name: "exit code", mode: "pipe", cmd: "echo bye; exit 3", code: ptr(3)},
		{name: "exit code pty", mode: "pty", cmd: "exit 7", code: ptr(7)},
		{name: "killed by signal", mode: "pipe", cmd: "kill -TERM $$", signal: "SIGTERM"},
		{name: "ctrl+c in pipe mode signals the group", mode: "pipe", cmd: "exec sleep 600", keys: []string{"ctrl+c"}, signal: "SIGINT"},
		{name: "ctrl+c through the remote pty", mode: "pty", cmd: "exec sleep 600", keys: []string{"ctrl+c"}, signal: "SIGINT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := c.start(map[string]any{"host": host, "command": tc.cmd, "mode": tc.mode, "settle_ms": 0, "timeout_ms": 500})
			if tc.keys != nil {
				var s SendResult
				c.call("send_input", map[string]any{"session_id": r.SessionID, "keys": tc.keys, "timeout_ms": 10000, "settle_ms": 0}, &s)
				r.ReadResult = s.ReadResult
			}
			if r.State != "exited" {
				var rr ReadResult
				c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 10000, "settle_ms": 0}, &rr)
				r.ReadResult = rr
			}
			if r.State != "exited" || r.Signal != tc.signal || (tc.code == nil) != (r.ExitCode == nil) || (tc.code != nil && *tc.code != *r.ExitCode) {
				t.Fatalf("state=%s code=%v signal=%q output=%q; want code %v signal %q", r.State, r.ExitCode, r.Signal, r.Output, tc.code, tc.signal)
			}
		})
	}
	t.Run("resize sends window-change", func(t *testing.T) {
		r := c.start(map[string]any{"host": host, "argv": []string{"bash", "--norc", "--noprofile", "--noediting"}, "env": map[string]string{"PS1": "$ "}, "rows": 24, "cols": 80})
		var s SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "stty size", "enter": true}, &s)
		if s.Output != "24 80\n$ " {
			t.Fatalf("stty size = %q (state %s)", s.Output, s.State)
		}
		c.call("resize_pty", map[string]any{"session_id": r.SessionID, "rows": 30, "cols": 100}, nil)
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "stty size", "enter": true}, &s)
		if s.Output != "30 100\n$ " {
			t.Fatalf("after resize: %q", s.Output)
		}
		var info InfoResult
		c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
		if info.Rows != 30 || info.Cols != 100 || info.Host != e.srv.User+"@"+e.srv.Addr {
			t.Fatalf("info: %dx%d host %q", info.Rows, info.Cols, info.Host)
		}
	})
}

func TestSSH_TerminateLeavesNoRemoteProcess(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	for i, mode := range []string{"pty", "pipe"} {
		t.Run(mode, func(t *testing.T) {
			tok := fmt.Sprintf("9137%d", i)
			// A child that left the session with setsid, one that ignores
			// SIGTERM, and the root itself.
			cmd := fmt.Sprintf(`setsid sleep %[1]s1 </dev/null >/dev/null 2>&1 & (trap "" TERM; exec sleep %[1]s2) & echo ready; exec sleep %[1]s3`, tok)
			r := c.start(map[string]any{"host": host, "command": cmd, "mode": mode, "until": "ready", "timeout_ms": 10000})
			if r.Reason != "matched" {
				t.Fatalf("start: %q reason=%s", r.Output, r.Reason)
			}
			waitRemote(t, e, tok, 3)
			var info InfoResult
			c.call("terminate_process", map[string]any{"session_id": r.SessionID, "grace_ms": 300}, &info)
			if info.State != "exited" || info.Signal != "SIGTERM" {
				t.Fatalf("terminate: state=%s signal=%q code=%v", info.State, info.Signal, info.ExitCode)
			}
			if left := remoteWith(e, tok); len(left) != 0 {
				t.Fatalf("processes left on the server: %v", left)
			}
		})
	}
}

// remoteWith lists the test user's processes whose command line has tok.
func remoteWith(e *sshEnv, tok string) []string {
	var out []string
	for pid, cl := range e.srv.Processes() {
		if strings.Contains(cl, tok) {
			out = append(out, fmt.Sprintf("%d %s", pid, cl))
		}
	}
	return out
}

// waitRemote waits until n processes with tok run on the server.
func waitRemote(t *testing.T, e *sshEnv, tok string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(remoteWith(e, tok)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("want %d processes with %s, have %v", n, tok, remoteWith(e, tok))
		}
		// The server side offers no event to wait on; poll /proc briefly.
		time.Sleep(5 * time.Millisecond)
	}
}
