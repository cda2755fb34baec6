package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/guardstart"
	"github.com/agentty/agentty/internal/procfile"
)

// guardMemory reads VmRSS and RssAnon of the server's guard: its child
// running "agentty __guard".
func guardMemory(server int) (rss, anon int64, err error) {
	kids, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", server))
	for _, f := range kids {
		b, _ := os.ReadFile(f)
		for _, p := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(p)
			argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if a := strings.Split(strings.TrimRight(string(argv), "\x00"), "\x00"); len(a) != 2 || a[1] != guardstart.Arg {
				continue
			}
			if rss, err = benchRSSKiB(pid); err != nil {
				return 0, 0, err
			}
			anon, err = benchStatusKiB(pid, "RssAnon:")
			return rss, anon, err
		}
	}
	return 0, 0, fmt.Errorf("server %d runs no guard (a child %q)", server, guardstart.Arg)
}

// benchRSSKiB reads VmRSS of a process.
func benchRSSKiB(pid int) (int64, error) { return benchStatusKiB(pid, "VmRSS:") }

// ProcessCPU is pid's CPU time so far, user and system, every thread's
// (/proc/PID/stat), at the clock tick's resolution.
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	var st procfile.Stat
	if !procfile.ParseStat(b, &st) || st.Fields < 12 {
		return 0, fmt.Errorf("/proc/%d/stat: no CPU times in %q", pid, b)
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(st.UTime+st.STime) * tick, nil
}

// benchStatusKiB reads a kB field of /proc/PID/status.
func benchStatusKiB(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}
