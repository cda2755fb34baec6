package main

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/bench"
)

// TestServe_ProcsFollowTheWork: "agentty serve" runs Go code on one CPU
// once its start settled while it only answers calls, on more while a
// program floods it with output, and on one again once the flood has
// ended and the hold passed (internal/procs). On a one-CPU machine it
// stays on one throughout.
func TestServe_ProcsFollowTheWork(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "debug.sock")
	s := startServerWith(t, func(cmd *exec.Cmd) {
		cmd.Env = append(cmd.Env, "GOMAXPROCS=") // the runtime's default, whatever the test runs with
	}, "-standalone", "-no-store", "-debug-socket", sock)
	procs := func() int {
		t.Helper()
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "stats\n"); err != nil {
			t.Fatal(err)
		}
		var st bench.ServerStats
		if err := json.NewDecoder(c).Decode(&st); err != nil {
			t.Fatal(err)
		}
		return st.GOMAXPROCS
	}
	// There is no event for a scheduler change: look until it shows.
	await := func(what string, ok func(int) bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for n := procs(); !ok(n); n = procs() {
			if time.Now().After(deadline) {
				t.Fatalf("GOMAXPROCS %d after 15 s, want %s", n, what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The runtime's default (CPUs, affinity, cgroup quota) is the same
	// for this process unless the environment overrides it here.
	multi := runtime.NumCPU() > 1
	if os.Getenv("GOMAXPROCS") == "" {
		multi = runtime.GOMAXPROCS(0) > 1
	}
	await("1 once the start settled", func(n int) bool { return n == 1 })
	var st struct {
		SessionID string `json:"session_id"`
	}
	s.call("start_process", map[string]any{"argv": []string{"yes", "a flood of output"}, "mode": "pipe", "timeout_ms": 0}, &st)
	if multi {
		await("more than 1 during the flood", func(n int) bool { return n > 1 })
	} else if n := procs(); n != 1 {
		t.Fatalf("GOMAXPROCS %d on a one-CPU machine, want 1", n)
	}
	s.call("terminate_process", map[string]any{"session_id": st.SessionID, "force": true}, nil)
	await("1 again a hold after the flood", func(n int) bool { return n == 1 })
}
