package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/mcpserver"
	core "github.com/agentty/agentty/internal/server"
)

// listed is list_sessions' structured result, as far as these tests look.
type listed struct {
	Sessions []sessionInfo `json:"sessions"`
}

func (l listed) state(id string) string {
	for _, s := range l.Sessions {
		if s.ID == id {
			return s.State
		}
	}
	return ""
}

// startPython starts a python3 REPL and waits for its prompt.
func startPython(t *testing.T, s *server) string {
	t.Helper()
	var r readResult
	s.call("start_process", map[string]any{"argv": []string{"python3", "-q"}, "until": ">>> "}, &r)
	if !strings.Contains(r.Output, ">>> ") {
		t.Fatalf("no python prompt: %+v", r)
	}
	return r.SessionID
}

func TestDaemon_SessionsOutliveServe(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	s1 := h.serve(t, nil)
	id := startPython(t, s1)
	// A second reader reads to the prompt; the default reader then sends a
	// line and reads its answer.
	var reg struct {
		ReaderID int `json:"reader_id"`
	}
	s1.call("register_reader", map[string]any{"session_id": id}, &reg)
	var r7 readResult
	s1.call("read_output", map[string]any{"session_id": id, "reader_id": reg.ReaderID, "timeout_ms": 10000, "until": ">>> "}, &r7)
	var sent readResult
	s1.call("send_input", map[string]any{"session_id": id, "text": "print(6*7)", "enter": true, "until": "42\r\n>>> "}, &sent)
	daemonPID := h.status(t).PID
	killServe(t, s1)

	s2 := h.serve(t, nil)
	var l listed
	s2.call("list_sessions", map[string]any{}, &l)
	if got := l.state(id); got == "" || got == "exited" {
		t.Fatalf("after the first serve was killed, list_sessions shows %s as %q: %+v", id, got, l)
	}
	// The second reader continues where it stopped: the line sent
	// meanwhile, its answer.
	var next readResult
	s2.call("read_output", map[string]any{"session_id": id, "reader_id": reg.ReaderID, "timeout_ms": 10000, "until": "42\r\n>>> "}, &next)
	if next.Output != "42\n>>> " {
		t.Errorf("the second reader after reattaching read %q, want the answer to the line sent before the kill", next.Output)
	}
	if next.Cursor != sent.Cursor {
		t.Errorf("the second reader ends at cursor %d, the default reader ended at %d", next.Cursor, sent.Cursor)
	}
	s2.call("send_input", map[string]any{"session_id": id, "text": "print(x := 6*9)", "enter": true, "until": "54\r\n>>> "}, &sent)
	if st := h.status(t); st.PID != daemonPID || st.Sessions != 1 || st.Clients != 1 {
		t.Errorf("daemon status %+v, want pid %d, 1 session running, 1 client", st, daemonPID)
	}
}

// TestDaemon_ClientDirectory: a session started without cwd runs in the
// directory of the client's serve, as with a standalone serve, not in the
// directory of the serve that happened to start the daemon.
func TestDaemon_ClientDirectory(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	a, b := t.TempDir(), t.TempDir()
	sa := h.serveIn(t, a, nil)
	sb := h.serveIn(t, b, nil)
	pwd := func(s *server, args map[string]any) string {
		t.Helper()
		args["argv"], args["mode"], args["return_on"] = []string{"pwd"}, "pipe", []string{"exit"}
		var r readResult
		s.call("start_process", args, &r)
		return strings.TrimSpace(r.Output)
	}
	if got := pwd(sa, map[string]any{}); got != a {
		t.Errorf("client in %s: pwd printed %q", a, got)
	}
	if got := pwd(sb, map[string]any{}); got != b {
		t.Errorf("client in %s: pwd printed %q", b, got)
	}
	if got := pwd(sb, map[string]any{"cwd": a}); got != a {
		t.Errorf("explicit cwd %s: pwd printed %q", a, got)
	}
	if ds := h.daemonsSettled(t); len(ds) != 1 {
		t.Fatalf("want both clients on one daemon, have %s", describe(ds))
	}
}

func TestDaemon_KillDaemonLeavesNoChild(t *testing.T) {
	t.Parallel()
	for _, te := range treeEnvs {
		t.Run(te.name, func(t *testing.T) {
			t.Parallel()
			h := newDaemonHome(t)
			// The daemon serve starts inherits the strategies.
			h.env = append(h.env, te.env...)
			killDaemonLeavesNoChild(t, h, te.start)
		})
	}
}

func killDaemonLeavesNoChild(t *testing.T, h *daemonHome, start func(*server, string) (string, string)) {
	s := h.serve(t, nil)
	_, ptyTag := start(s, "pty")
	_, pipeTag := start(s, "pipe")
	pid := h.status(t).PID
	guard := waitGuard(t, pid)
	s.killed = true // its daemon is gone: serve ends with an error
	if err := killPID(pid); err != nil {
		t.Fatal(err)
	}
	waitTagged(t, ptyTag, 0, goneWithin)
	waitTagged(t, pipeTag, 0, goneWithin)
	waitGone(t, guard)
	// serve ends on its own, its client still connected: closing its stdin
	// first would be a client ending at the same moment, a clean exit.
	serve := s.cmd.Process.Pid
	deadline := time.Now().Add(exitWithin)
	for delay := time.Millisecond; !isZombie(serve); delay = min(delay*2, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve %d still running %v after its daemon was killed", serve, exitWithin)
		}
		time.Sleep(delay) // bounded poll: Wait is close's, so no exit event is ours
	}
	if st := s.close(); st.ExitCode() != 1 {
		t.Errorf("serve ended with %v when its daemon was killed, want exit 1", st)
	}
	if log := readFile(t, s.stderr); !strings.Contains(log, "the daemon closed the connection") {
		t.Errorf("serve's log does not say the daemon went away:\n%s", log)
	}
}

func TestDaemon_IdleExit(t *testing.T) {
	t.Parallel()
	h := newDaemonHome(t)
	s := h.serve(t, nil, "-idle", "200ms")
	id := startPython(t, s)
	pid := h.status(t).PID
	if st := s.close(); st.ExitCode() != 0 {
		t.Fatalf("serve ended with %v", st)
	}
	// A session runs: the daemon stays; a new client finds it.
	s2 := h.serve(t, nil, "-idle", "200ms")
	if st := h.status(t); st.PID != pid || st.Sessions != 1 {
		t.Fatalf("with a session running the daemon changed or forgot it: %+v, want pid %d", st, pid)
	}
	s2.call("send_input", map[string]any{"session_id": id, "text": "exit()", "enter": true, "timeout_ms": 0}, nil)
	var r readResult
	s2.call("read_output", map[string]any{"session_id": id, "timeout_ms": 20000, "return_on": []string{"exit"}}, &r)
	if r.State != "exited" {
		t.Fatalf("python did not exit: %+v", r)
	}
	if st := s2.close(); st.ExitCode() != 0 {
		t.Fatalf("serve ended with %v", st)
	}
	waitGone(t, pid)
	if _, err := os.Stat(h.socket); !os.IsNotExist(err) {
		t.Errorf("the idle daemon left its socket file: %v", err)
	}
	if log := h.log(t); !strings.Contains(log, "daemon idle: exiting") {
		t.Errorf("daemon log does not say it left for idleness:\n%s", log)
	}
}

func TestDaemon_OneDaemonPerSocket(t *testing.T) {
	t.Parallel()
	for i := range 5 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			h := newDaemonHome(t)
			const clients = 4
			servers := make([]*server, clients)
			var wg sync.WaitGroup
			for c := range clients {
				wg.Go(func() { servers[c] = h.serve(t, nil) })
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			if ds := h.daemonsSettled(t); len(ds) != 1 {
				t.Fatalf("%d serve processes started at once left %d daemons: %s", clients, len(ds), describe(ds))
			}
			id := startPython(t, servers[0])
			var l listed
			servers[clients-1].call("list_sessions", map[string]any{}, &l)
			if l.state(id) == "" {
				t.Errorf("a session started by one client is not listed by another: %+v", l)
			}
			if st := h.status(t); st.Clients != clients {
				t.Errorf("daemon counts %d clients, want %d", st.Clients, clients)
			}
		})
	}
}

func TestDaemon_ConfigDifference(t *testing.T) {
	t.Parallel()
	t.Run("busy daemon: this client served standalone, told why", func(t *testing.T) {
		t.Parallel()
		h := newDaemonHome(t)
		s := h.serve(t, nil)
		inDaemon := startPython(t, s)
		before := h.status(t)
		s2 := h.serve(t, nil, "-max-sessions", "7")
		const diff = "max-sessions: daemon 64, this serve 7"
		instr := s2.cs.InitializeResult().Instructions
		if n := strings.Count(instr, "not in the user's agentty daemon"); n != 1 || !strings.Contains(instr, diff) {
			t.Errorf("the instructions say the standalone note %d times (want 1) or lack %q:\n%s", n, diff, instr)
		}
		if strings.Contains(s.cs.InitializeResult().Instructions, "not in the user's agentty daemon") {
			t.Errorf("the daemon's client was given the standalone note")
		}
		// It works, on its own: a session of its own, with an id the shared
		// store did not give the daemon's.
		own := startPython(t, s2)
		if own == inDaemon {
			t.Errorf("the standalone server's session has the daemon's session's id %s", own)
		}
		var sent readResult
		s2.call("send_input", map[string]any{"session_id": own, "text": "print(6*7)", "enter": true, "until": "42\r\n>>> "}, &sent)
		if !strings.Contains(sent.Output, "42") {
			t.Errorf("the standalone session answered %q", sent.Output)
		}
		if st := h.status(t); st.PID != before.PID || st.Sessions != 1 || st.Clients != 1 {
			t.Errorf("daemon status %+v, want pid %d, its 1 session and 1 client only", st, before.PID)
		}
		if st := s2.close(); st.ExitCode() != 0 {
			t.Errorf("the standalone serve exited %v", st)
		}
		if log := readFile(t, s2.stderr); strings.Count(log, "serving this client standalone") != 1 || !strings.Contains(log, diff) {
			t.Errorf("serve's log does not say once that it serves standalone and why:\n%s", log)
		}
		// The daemon's session is untouched by the standalone server's end.
		s.call("send_input", map[string]any{"session_id": inDaemon, "text": "print(6*9)", "enter": true, "until": "54\r\n>>> "}, &sent)
		var l listed
		s.call("list_sessions", map[string]any{}, &l)
		if got := l.state(inDaemon); got == "" || got == "exited" || got == "lost" {
			t.Errorf("after the standalone serve ended, the daemon's session is %q: %+v", got, l)
		}
	})
	t.Run("idle daemon: replaced", func(t *testing.T) {
		t.Parallel()
		h := newDaemonHome(t)
		s := h.serve(t, nil, "-idle", "0")
		old := h.status(t).PID
		s.close()
		s2 := h.serve(t, nil, "-max-sessions", "7")
		st := h.status(t)
		if st.PID == old || st.Settings["max-sessions"] != "7" {
			t.Errorf("daemon after a serve with -max-sessions 7: pid %d (old %d), max-sessions %q", st.PID, old, st.Settings["max-sessions"])
		}
		waitGone(t, old)
		s2.close()
		if log := readFile(t, s2.stderr); !strings.Contains(log, "max-sessions: daemon 64, this serve 7") || !strings.Contains(log, "replacing it") {
			t.Errorf("serve did not report the replaced daemon's settings:\n%s", log)
		}
	})
	// Another AGENTTY_PORTABLE is another engine: a busy daemon's strategies
	// are not this client's, so it is served standalone with its own.
	t.Run("portable strategies differ", func(t *testing.T) {
		t.Parallel()
		h := newDaemonHome(t)
		s := h.serve(t, nil)
		startPython(t, s)
		s2 := h.serve(t, []string{core.PortableEnv + "=verdict"})
		const diff = core.PortableEnv + ": daemon (not set), this serve verdict"
		if instr := s2.cs.InitializeResult().Instructions; !strings.Contains(instr, "not in the user's agentty daemon") || !strings.Contains(instr, diff) {
			t.Errorf("a serve with %s=verdict beside a daemon without it was not told it runs standalone, or why:\n%s", core.PortableEnv, instr)
		}
		var r mcpserver.StartResult
		s2.call("start_process", map[string]any{"argv": []string{"python3", "-q"}}, &r)
		if !strings.HasPrefix(r.StateDetail, "inferred: ") {
			t.Errorf("the standalone serve's python prompt was judged %q, want the inferred verdict it asked for", r.StateDetail)
		}
	})
}

func TestDaemon_VersionMismatch(t *testing.T) {
	t.Parallel()
	old := []string{versionEnv + "=0.0.1"}
	t.Run("older idle daemon: replaced", func(t *testing.T) {
		t.Parallel()
		h := newDaemonHome(t)
		s := h.serve(t, old, "-idle", "0")
		st := h.status(t)
		if st.Version != "0.0.1" {
			t.Fatalf("daemon version %q, want 0.0.1", st.Version)
		}
		s.close()
		s2 := h.serve(t, nil)
		now := h.status(t)
		if now.Version != version || now.PID == st.PID {
			t.Errorf("after a newer serve: daemon %s pid %d, want %s in a new process (old pid %d)", now.Version, now.PID, version, st.PID)
		}
		waitGone(t, st.PID)
		s2.close()
		if log := readFile(t, s2.stderr); !strings.Contains(log, "is agentty 0.0.1, older than this serve's "+version+", and idle: replacing it") {
			t.Errorf("serve did not say it replaced the older daemon:\n%s", log)
		}
	})
	t.Run("older busy daemon: used with a warning", func(t *testing.T) {
		t.Parallel()
		h := newDaemonHome(t)
		s := h.serve(t, old)
		id := startPython(t, s)
		pid := h.status(t).PID
		s2 := h.serve(t, nil)
		var l listed
		s2.call("list_sessions", map[string]any{}, &l)
		if l.state(id) == "" || h.status(t).PID != pid {
			t.Errorf("the newer serve did not use the busy older daemon: %+v", l)
		}
		s2.close()
		if log := readFile(t, s2.stderr); !strings.Contains(log, "is agentty 0.0.1 and this serve is "+version+"; using it (1 session running") {
			t.Errorf("serve did not warn about the older daemon:\n%s", log)
		}
	})
}
