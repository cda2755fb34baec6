//go:build linux

package procfile

import "bytes"

// Stat is the part of a /proc/PID[/task/TID]/stat line agentty uses.
type Stat struct {
	Comm    []byte // the name between the parentheses; aliases the line
	State   byte   // R, S, D, T, t, Z, X ...
	PPid    int
	PGrp    int
	Session int
	// TTYNr is the controlling terminal's device number; the kernel
	// prints it as a signed int, so a large minor shows as negative.
	TTYNr uint32
	TPGid int // the terminal's foreground process group; -1 without one
	// UTime and STime are the CPU time spent in user and kernel mode, in
	// clock ticks (USER_HZ, 100 a second on Linux).
	UTime, STime uint64
	// NumThreads counts the whole process's threads; 0 when the line
	// stops before it.
	NumThreads int
	// StartTime is when the process started, in clock ticks after boot;
	// with the pid it names one process across pid reuse.
	StartTime uint64
	// Fields counts the numeric fields read after state (ppid is the
	// first, starttime the 19th): a caller that needs a late field checks
	// it was there.
	Fields int
}

// ParseStat decodes a stat line into s without allocating. comm may
// contain spaces and parentheses, so it runs from the first '(' to the
// last ')' and the fields are counted from there. ok is false when the
// line does not reach tty_nr; fields after it that are missing are 0.
func ParseStat(b []byte, s *Stat) bool {
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open || close+2 >= len(b) {
		return false
	}
	s.Comm = b[open+1 : close]
	rest := b[close+2:]
	s.State = rest[0]
	// Fields after state: ppid pgrp session tty_nr tpgid, then eleven
	// more up to num_threads, itrealvalue and starttime.
	var f [19]int64
	i := 1
	for k := range f {
		for i < len(rest) && rest[i] == ' ' {
			i++
		}
		neg := false
		if i < len(rest) && rest[i] == '-' {
			neg = true
			i++
		}
		var v int64
		start := i
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			v = v*10 + int64(rest[i]-'0')
			i++
		}
		if i == start {
			if k < 4 {
				return false
			}
			break
		}
		if neg {
			v = -v
		}
		f[k] = v
		s.Fields = k + 1
	}
	s.PPid, s.PGrp, s.Session, s.TTYNr = int(f[0]), int(f[1]), int(f[2]), uint32(f[3])
	s.TPGid, s.NumThreads, s.StartTime = int(f[4]), int(f[16]), uint64(f[18])
	s.UTime, s.STime = uint64(f[10]), uint64(f[11])
	return true
}
