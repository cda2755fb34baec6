package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/daemon"
)

// versionEnv, read by TestMain in the agentty child, replaces its version:
// the tests of version handling need daemons of two versions.
const versionEnv = "E2E_VERSION"

// daemonHome is one test's daemon world: a socket directory and a state
// directory of its own, so no test meets the user's daemon or another
// test's. Cleanup kills every daemon on the socket and waits until each
// is gone.
type daemonHome struct {
	t      *testing.T
	socket string
	state  string
	env    []string // extra environment for every process
}

func newDaemonHome(t *testing.T) *daemonHome {
	t.Helper()
	// A short directory: a unix socket path holds at most 107 bytes.
	dir, err := os.MkdirTemp("", "agentty-daemon-test-")
	if err != nil {
		t.Fatal(err)
	}
	h := &daemonHome{t: t, socket: filepath.Join(dir, "run", "agentty.sock"), state: t.TempDir()}
	t.Cleanup(func() {
		for _, pid := range h.daemons() {
			_ = killPID(pid)
			waitGone(t, pid)
		}
		os.RemoveAll(dir)
	})
	return h
}

// command is selfCommand as a client of this home's daemon.
func (h *daemonHome) command(t *testing.T, args ...string) *exec.Cmd {
	cmd := selfCommand(t, args...)
	cmd.Env = append(cmd.Env, standaloneEnv+"=", "AGENTTY_SOCKET="+h.socket, "XDG_STATE_HOME="+h.state)
	cmd.Env = append(cmd.Env, h.env...)
	return cmd
}

// serve starts "agentty serve" relaying to this home's daemon, with an MCP
// client on its stdio; env is added to its environment.
func (h *daemonHome) serve(t *testing.T, env []string, flags ...string) *server {
	t.Helper()
	return h.serveIn(t, "", env, flags...)
}

// serveIn is serve started in directory dir ("": the test's).
func (h *daemonHome) serveIn(t *testing.T, dir string, env []string, flags ...string) *server {
	t.Helper()
	return startServerWith(t, func(cmd *exec.Cmd) {
		cmd.Env = append(cmd.Env, standaloneEnv+"=", "AGENTTY_SOCKET="+h.socket, "XDG_STATE_HOME="+h.state)
		cmd.Env = append(append(cmd.Env, h.env...), env...)
		cmd.Dir = dir
	}, flags...)
}

// status asks the daemon for its status.
func (h *daemonHome) status(t *testing.T) daemon.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := daemon.GetStatus(ctx, h.socket)
	if err != nil {
		t.Fatalf("daemon status: %v", err)
	}
	return st
}

// daemons lists the live processes running "agentty daemon" on this
// home's socket. A daemon's child between its fork and its exec (the
// guard, a session's program) still shows the daemon's command line; it is
// not a second daemon, and is left out: a real one is started by a serve.
func (h *daemonHome) daemons() []int {
	cands := map[int]int{} // pid → parent pid
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(cl), "\x00"), "\x00")
		if len(argv) > 3 && argv[1] == "daemon" && slices.Contains(argv, h.socket) {
			var pid int
			if err := json.Unmarshal([]byte(e.Name()), &pid); err == nil && !isZombie(pid) {
				cands[pid] = parentPID(pid)
			}
		}
	}
	var out []int
	for pid, ppid := range cands {
		if _, forked := cands[ppid]; !forked {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// daemonsSettled is daemons once those that lost the claim have gone. A
// daemon a serve started while another one was taking the socket tells
// its serve so and exits, and may still be on its way out when every serve
// is connected. Every daemon but the one answering on the socket is waited
// for (waitGone fails the test if one stays).
func (h *daemonHome) daemonsSettled(t *testing.T) []int {
	t.Helper()
	ds := h.daemons()
	if len(ds) <= 1 {
		return ds
	}
	st := h.status(t)
	for _, pid := range ds {
		if pid != st.PID {
			waitGone(t, pid)
		}
	}
	return h.daemons()
}

// parentPID reads a process's parent from /proc (0 when it is gone).
func parentPID(pid int) int {
	f, _ := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// log is the daemon's log file.
func (h *daemonHome) log(t *testing.T) string {
	b, _ := os.ReadFile(filepath.Join(h.state, "agentty", "daemon.log"))
	return string(b)
}

// killServe kills a serve process with SIGKILL, as a crashing client
// would, and reaps it.
func killServe(t *testing.T, s *server) {
	t.Helper()
	s.killed = true
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.close()
}
