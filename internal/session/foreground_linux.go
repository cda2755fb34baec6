//go:build linux

package session

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agentty/agentty/internal/record"
)

// Foreground reports who reads the session's input now: for a PTY the
// terminal's foreground process group (tpgid from /proc/ROOT/stat), for
// pipes the root's group. The policy uses it to tell a shell reading
// command lines from a program reading its own input.
func (s *Session) Foreground() (Foreground, error) {
	if isDone(s.done) {
		return Foreground{}, s.exitedErr()
	}
	root := s.PID()
	f := Foreground{PGID: root, PID: root}
	if s.Mode == record.ModePTY {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", root))
		if err != nil {
			return Foreground{}, fmt.Errorf("foreground of %s: %w", s.ID, err)
		}
		// Fields after "(comm) ": state ppid pgrp session tty_nr tpgid ...
		i := strings.LastIndexByte(string(data), ')')
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) > 5 {
			if pg, err := strconv.Atoi(fields[5]); err == nil && pg > 0 {
				f.PGID, f.PID = pg, pg
			}
		}
	}
	f.Comm, f.Args = comm(f.PID), cmdline(f.PID)
	f.Cwd, _ = os.Readlink(fmt.Sprintf("/proc/%d/cwd", f.PID))
	// Children by parentage (/proc/PID/task/TID/children): a few small
	// reads for a session's handful of processes, where scanning every
	// process's environment for the session marker costs ~1 ms.
	queue := []int{root}
	for len(queue) > 0 && len(f.Procs) < maxForegroundProcs {
		pid := queue[0]
		queue = queue[1:]
		f.Procs = append(f.Procs, ProcArgs{PID: pid, PGID: pgid(pid), Args: cmdline(pid)})
		queue = append(queue, children(pid)...)
	}
	return f, nil
}

// maxForegroundProcs bounds the walk of a session's process tree.
const maxForegroundProcs = 4096

func children(pid int) []int {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

func pgid(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(fields[2])
	return g
}

func cmdline(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func comm(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
