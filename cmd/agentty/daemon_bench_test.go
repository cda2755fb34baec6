package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/daemon"
)

// BenchmarkDaemon_IdleSessionsMemory reports the daemon's resident memory
// with 100 idle PTY sessions (cat waiting for input), and per session over
// the daemon with none.
//
//	go test -run '^$' -bench Daemon_IdleSessionsMemory -benchtime 1x ./cmd/agentty
func BenchmarkDaemon_IdleSessionsMemory(b *testing.B) {
	const n = 100
	for b.Loop() {
		dir, err := os.MkdirTemp("", "agentty-daemon-bench-")
		if err != nil {
			b.Fatal(err)
		}
		socket := filepath.Join(dir, "run", "agentty.sock")
		s := startServerWith(b, func(cmd *exec.Cmd) {
			cmd.Env = append(cmd.Env, standaloneEnv+"=", "AGENTTY_SOCKET="+socket, "XDG_STATE_HOME="+filepath.Join(dir, "state"))
		}, "-idle", "0", "-no-store", "-max-sessions", "200")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		st, err := daemon.GetStatus(ctx, socket)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		base := rssKiB(b, st.PID)
		for i := range n {
			s.call("start_process", map[string]any{"argv": []string{"cat"}, "name": fmt.Sprintf("c%d", i), "timeout_ms": 0}, nil)
		}
		full := rssKiB(b, st.PID)
		b.ReportMetric(float64(base)/1024, "MiB-idle")
		b.ReportMetric(float64(full)/1024, "MiB-100-sessions")
		b.ReportMetric(float64(full-base)/n, "KiB/session")
		_ = killPID(st.PID)
		s.killed = true
		s.close()
		os.RemoveAll(dir)
	}
}

// rssKiB is a process's resident set (VmRSS) in KiB.
func rssKiB(b *testing.B, pid int) int {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				b.Fatal(err)
			}
			return v
		}
	}
	b.Fatalf("no VmRSS for %d", pid)
	return 0
}
