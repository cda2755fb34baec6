package main

import (
	"syscall"
	"testing"
	"time"
)

// treeArgv leaves three processes: the shell, a sleep in its process group
// and a sleep that escaped into its own session, which only a tree-wide kill
// (or the guard's environment-marker sweep) catches.
var treeArgv = []string{"sh", "-c", "sleep 1000 & setsid sleep 1000 & wait"}

// goneWithin is how long a dead server's processes may take to disappear.
const goneWithin = 10 * time.Second

// startTree starts treeArgv in mode tagged with a fresh tag and waits until
// its three processes run.
func (s *server) startTree(mode string) (id, tag string) {
	s.t.Helper()
	tag = newTag(s.t)
	var r readResult
	s.call("start_process", map[string]any{"argv": treeArgv, "mode": mode, "env": map[string]string{tagVar: tag}, "timeout_ms": 0}, &r)
	if r.State == "exited" {
		s.t.Fatalf("%s tree exited at once: %+v", mode, r)
	}
	waitTagged(s.t, tag, 3, 30*time.Second)
	return r.SessionID, tag
}

func TestServe_KillLeavesNoChild(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		stop func(t *testing.T, s *server)
	}{
		{"sigkill", func(t *testing.T, s *server) {
			s.killed = true
			if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			st := s.close()
			if ws := st.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Errorf("server ended with %v, want killed by SIGKILL", st)
			}
		}},
		{"stdin_eof", func(t *testing.T, s *server) {
			if st := s.close(); st.ExitCode() != 0 {
				t.Errorf("server ended with %v after stdin EOF, want exit 0", st)
			}
		}},
		{"sigterm", func(t *testing.T, s *server) {
			s.killed = true
			if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			// Exit on the signal alone, with stdin still open: the server
			// becomes our zombie, which close then reaps.
			pid := s.cmd.Process.Pid
			deadline := time.Now().Add(exitWithin)
			for delay := time.Millisecond; !isZombie(pid); delay = min(delay*2, 50*time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("server %d still running %v after SIGTERM", pid, exitWithin)
				}
				time.Sleep(delay) // bounded poll: Wait is close's, so no exit event is ours
			}
			if st := s.close(); st.ExitCode() != 0 {
				t.Errorf("server ended with %v after SIGTERM, want exit 0", st)
			}
		}},
	}
	for _, te := range treeEnvs {
		for _, tc := range cases {
			t.Run(te.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				s := startServerWith(t, withEnv(te.env))
				_, ptyTag := te.start(s, "pty")
				_, pipeTag := te.start(s, "pipe")
				guard := waitGuard(t, s.cmd.Process.Pid)
				tc.stop(t, s)
				waitTagged(t, ptyTag, 0, goneWithin)
				waitTagged(t, pipeTag, 0, goneWithin)
				deadline := time.Now().Add(goneWithin)
				for delay := time.Millisecond; !isZombie(guard); delay = min(delay*2, 50*time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("guard %d still alive %v after the server ended", guard, goneWithin)
					}
					time.Sleep(delay) // bounded poll: no event tells us a non-child exited
				}
			})
		}
	}
}

func TestServe_TerminateTree(t *testing.T) {
	t.Parallel()
	for _, te := range treeEnvs {
		t.Run(te.name, func(t *testing.T) {
			t.Parallel()
			terminateTrees(t, startServerWith(t, withEnv(te.env)), te.start)
		})
	}
}

// terminateTrees ends a tree of each mode, started by start, with
// terminate_process.
func terminateTrees(t *testing.T, s *server, start func(*server, string) (string, string)) {
	for _, mode := range []string{"pty", "pipe"} {
		id, tag := start(s, mode)
		var first infoResult
		s.call("terminate_process", map[string]any{"session_id": id, "grace_ms": 2000}, &first)
		if first.State != "exited" || first.Signal != "SIGTERM" || first.ExitCode != nil {
			t.Errorf("%s: terminate_process = state %q signal %q exit %v, want exited by SIGTERM", mode, first.State, first.Signal, first.ExitCode)
		}
		if left := taggedPIDs(tag); len(left) != 0 {
			t.Errorf("%s: terminate_process returned while tagged processes live: %s", mode, describe(left))
		}
		var second infoResult
		s.call("terminate_process", map[string]any{"session_id": id, "grace_ms": 2000}, &second)
		if second.State != first.State || second.Signal != first.Signal || (second.ExitCode == nil) != (first.ExitCode == nil) || second.PID != first.PID {
			t.Errorf("%s: second terminate_process = %+v, want the same status as %+v", mode, second, first)
		}
		var info infoResult
		s.call("get_session_info", map[string]any{"session_id": id}, &info)
		if info.State != "exited" || info.Signal != "SIGTERM" {
			t.Errorf("%s: get_session_info after terminate = %+v, want exited by SIGTERM", mode, info)
		}
	}
}
