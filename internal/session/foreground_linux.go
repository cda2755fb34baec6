//go:build linux

package session

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Foreground is the program that receives what is typed into a session.
type Foreground struct {
	PID  int      // leader of the terminal's foreground process group (PTY), or the root (pipe)
	Comm string   // its command name, e.g. "bash", "python3"
	Cwd  string   // its working directory
	Args []string // its command line
	// Root and RootArgs are the command name and line of the session's root.
	Root     string
	RootArgs []string
}

// Foreground reports who reads the session's input now: for a PTY the
// terminal's foreground process group (tpgid from /proc/ROOT/stat), for
// pipes the root process. The policy uses it to tell a shell at its prompt
// (input is a command line) from a program reading its own input.
func (s *Session) Foreground() (Foreground, error) {
	if isDone(s.done) {
		return Foreground{}, s.exitedErr()
	}
	root := s.PID()
	f := Foreground{PID: root, Root: comm(root), RootArgs: cmdline(root)}
	if s.Mode == ModePTY {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", root))
		if err != nil {
			return Foreground{}, fmt.Errorf("foreground of %s: %w", s.ID, err)
		}
		// Fields after "(comm) ": state ppid pgrp session tty_nr tpgid ...
		i := strings.LastIndexByte(string(data), ')')
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) > 5 {
			if pg, err := strconv.Atoi(fields[5]); err == nil && pg > 0 {
				f.PID = pg
			}
		}
	}
	f.Comm, f.Args = comm(f.PID), cmdline(f.PID)
	f.Cwd, _ = os.Readlink(fmt.Sprintf("/proc/%d/cwd", f.PID))
	return f, nil
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
