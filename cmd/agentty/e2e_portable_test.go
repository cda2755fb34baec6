package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/platform"
)

// The core end-to-end list run with AGENTTY_PORTABLE=1: the strategies
// macOS relies on (the inferred verdict; the tree and the guard as far as
// they are built for Linux) through the real binary and MCP client, so CI
// runs what a Mac would.

var portableEnv = platform.Env + "=1"

func startPortable(t *testing.T, flags ...string) *server {
	t.Helper()
	return startServerWith(t, func(cmd *exec.Cmd) { cmd.Env = append(cmd.Env, portableEnv) }, flags...)
}

// wantInferred checks a read that should have ended on the inferred verdict.
func wantInferred(t *testing.T, what string, r mcpserver.ReadResult, state string) {
	t.Helper()
	if r.Reason != "awaiting_input" || r.State != state || !strings.HasPrefix(r.StateDetail, "inferred: pgrp ") {
		t.Fatalf("%s: reason=%s state=%s detail=%q output=%q; want awaiting_input, %s, inferred", what, r.Reason, r.State, r.StateDetail, r.Output, state)
	}
}

func TestPortable_Prompts(t *testing.T) {
	t.Parallel()
	s := startPortable(t)
	t.Run("python REPL round trips", func(t *testing.T) {
		var r mcpserver.StartResult
		s.call("start_process", map[string]any{"argv": []string{"python3", "-q"}}, &r)
		wantInferred(t, "start", r.ReadResult, "awaiting_input")
		if r.Output != ">>> " {
			t.Fatalf("start output %q, want the prompt", r.Output)
		}
		for i := range 20 {
			var sr mcpserver.SendResult
			s.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &sr)
			wantInferred(t, fmt.Sprintf("round trip %d", i), sr.ReadResult, "awaiting_input")
			if want := fmt.Sprintf("%d\n>>> ", i*7); sr.Output != want {
				t.Fatalf("round trip %d: output %q, want %q", i, sr.Output, want)
			}
		}
	})
	t.Run("installer prompt without newline", func(t *testing.T) {
		var r mcpserver.StartResult
		s.call("start_process", map[string]any{"argv": []string{"sh", "-c", "printf 'Continue? [Y/n] '; read a; echo answer=$a"}}, &r)
		wantInferred(t, "start", r.ReadResult, "awaiting_input")
		if r.Output != "Continue? [Y/n] " {
			t.Fatalf("start output %q, want the question", r.Output)
		}
		var sr mcpserver.SendResult
		s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "y", "enter": true, "return_on": []string{"exit"}}, &sr)
		if sr.State != "exited" || sr.ExitCode == nil || *sr.ExitCode != 0 || sr.Output != "answer=y\n" {
			t.Fatalf("after the answer: state=%s exit=%v output=%q", sr.State, sr.ExitCode, sr.Output)
		}
	})
	t.Run("password prompt", func(t *testing.T) {
		var r mcpserver.StartResult
		s.call("start_process", map[string]any{"argv": []string{"bash", "-c", "read -s -p 'Password: ' pw; echo; echo len=${#pw}"}}, &r)
		wantInferred(t, "start", r.ReadResult, "awaiting_password")
		if r.Output != "Password: " || !strings.HasSuffix(r.StateDetail, "; echo off") {
			t.Fatalf("start output %q detail %q", r.Output, r.StateDetail)
		}
		var sr mcpserver.SendResult
		s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "hunter2", "enter": true, "return_on": []string{"exit"}}, &sr)
		if sr.State != "exited" || sr.ExitCode == nil || *sr.ExitCode != 0 || sr.Output != "\nlen=7\n" {
			t.Fatalf("after the password: state=%s exit=%v output=%q", sr.State, sr.ExitCode, sr.Output)
		}
	})
	t.Run("the variable is a setting", func(t *testing.T) {
		log := readFile(t, s.stderr)
		if m := regexp.MustCompile(`(?m)name no setting are ignored.*$`).FindString(log); strings.Contains(m, platform.Env) {
			t.Fatalf("serve calls %s ignored: %s", platform.Env, m)
		}
	})
	t.Run("pipe sessions settle", func(t *testing.T) {
		var r mcpserver.StartResult
		s.call("start_process", map[string]any{"argv": []string{"sh", "-c", "echo hi; read a"}, "mode": "pipe", "settle_ms": 200}, &r)
		if r.Reason != "settled" || r.State != "running" || r.Output != "hi\n" {
			t.Fatalf("pipe start: reason=%s state=%s detail=%q output=%q; want settled, running", r.Reason, r.State, r.StateDetail, r.Output)
		}
	})
}

// TestPortable_BulkOutput: 22.9 MB through a PTY arrive whole: the
// inferred verdict never ends the stream early (a pipe session settles
// either way).
func TestPortable_BulkOutput(t *testing.T) {
	t.Parallel()
	want := seqOutput(t, "3000000")
	if len(want) != 22888896 {
		t.Fatalf("seq 1 3000000 printed %d bytes, want 22888896", len(want))
	}
	s := startPortable(t, "-session-memory", "64MiB")
	// The terminal's "\r\n" reads as "\n": seq's own bytes.
	s.wholeOutput(map[string]any{"argv": []string{"seq", "1", "3000000"}, "timeout_ms": 0}, want)
}

// TestPortable_TreeKill: terminate_process ends the whole tree, a process
// that escaped with setsid included, and kill -9 of the server leaves no
// child of any session.
func TestPortable_TreeKill(t *testing.T) {
	t.Parallel()
	t.Run("terminate", func(t *testing.T) {
		t.Parallel()
		s := startPortable(t)
		for _, mode := range []string{"pty", "pipe"} {
			id, tag := s.startTree(mode)
			var info infoResult
			s.call("terminate_process", map[string]any{"session_id": id, "grace_ms": 2000}, &info)
			if info.State != "exited" || info.Signal != "SIGTERM" {
				t.Errorf("%s: terminate_process = %+v, want exited by SIGTERM", mode, info)
			}
			if left := taggedPIDs(tag); len(left) != 0 {
				t.Errorf("%s: terminate_process returned while tagged processes live: %s", mode, describe(left))
			}
		}
	})
	t.Run("kill -9 of the server", func(t *testing.T) {
		t.Parallel()
		s := startPortable(t)
		_, ptyTag := s.startTree("pty")
		_, pipeTag := s.startTree("pipe")
		waitGuard(t, s.cmd.Process.Pid)
		s.killed = true
		if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		s.close()
		waitTagged(t, ptyTag, 0, goneWithin)
		waitTagged(t, pipeTag, 0, goneWithin)
	})
}

// TestPortable_DaemonReattach: a session in a portable daemon outlives
// the serve that started it; the next serve finds it waiting, as inferred.
func TestPortable_DaemonReattach(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	h.env = append(h.env, portableEnv)
	s1 := h.serve(t, nil)
	var r mcpserver.StartResult
	s1.call("start_process", map[string]any{"argv": []string{"python3", "-q"}}, &r)
	wantInferred(t, "start", r.ReadResult, "awaiting_input")
	daemonPID := h.status(t).PID
	killServe(t, s1)

	s2 := h.serve(t, nil)
	var sr mcpserver.SendResult
	s2.call("send_input", map[string]any{"session_id": r.SessionID, "text": "print(6*9)", "enter": true}, &sr)
	wantInferred(t, "after reattaching", sr.ReadResult, "awaiting_input")
	if sr.Output != "54\n>>> " {
		t.Errorf("after reattaching: output %q, want the answer and the prompt", sr.Output)
	}
	if st := h.status(t); st.PID != daemonPID || st.Sessions != 1 {
		t.Errorf("daemon status %+v, want pid %d with 1 session", st, daemonPID)
	}
}

// TestPortable_BadValueRefused: a misspelt strategy stops serve at start
// instead of running Linux's own strategies under a portable name.
func TestPortable_BadValueRefused(t *testing.T) {
	t.Parallel()
	cmd := selfCommand(t, "serve", "-standalone", "-no-store")
	cmd.Env = append(cmd.Environ(), platform.Env+"=verdict,treee")
	var errb strings.Builder
	cmd.Stderr = &errb
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); err == nil || code == 0 || !strings.Contains(errb.String(), `unknown strategy "treee"`) {
		t.Fatalf("serve with %s=verdict,treee: exit %d (%v), stderr %q; want a failure naming the strategy", platform.Env, code, err, errb.String())
	}
}
