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
			return benchResident(pid)
		}
	}
	return 0, 0, fmt.Errorf("server %d runs no guard (a child %q)", server, guardstart.Arg)
}

// benchRSSKiB reads VmRSS of a process.
func benchRSSKiB(pid int) (int64, error) {
	v, err := benchStatusKiB(pid, "VmRSS:")
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// benchResident reads VmRSS and RssAnon (what the process holds of its
// own) of a process, from one reading of its status.
func benchResident(pid int) (rss, anon int64, err error) {
	v, err := benchStatusKiB(pid, "VmRSS:", "RssAnon:")
	if err != nil {
		return 0, 0, err
	}
	return v[0], v[1], nil
}

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

// benchStatusKiB reads kB fields of /proc/PID/status, in the order of
// keys.
func benchStatusKiB(pid int, keys ...string) ([]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	vals := make([]int64, len(keys))
	for i, key := range keys {
		_, rest, ok := strings.Cut(string(b), "\n"+key)
		if !ok {
			return nil, fmt.Errorf("no %s in /proc/%d/status", key, pid)
		}
		line, _, _ := strings.Cut(rest, "\n")
		if vals[i], err = strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "kB")), 10, 64); err != nil {
			return nil, fmt.Errorf("/proc/%d/status %s: %w", pid, key, err)
		}
	}
	return vals, nil
}

// openFDs counts a process's open descriptors.
func openFDs(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents), err
}
