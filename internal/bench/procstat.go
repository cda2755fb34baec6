package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/guardstart"
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
	// Fields after the command name, which may hold spaces: state is
	// the first, utime the 12th, stime the 13th.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:])) // all of b when there is no ')': too few
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, uerr := strconv.ParseInt(f[11], 10, 64)
	st, serr := strconv.ParseInt(f[12], 10, 64)
	if uerr != nil || serr != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(ut+st) * tick, nil
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
