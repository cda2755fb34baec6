//go:build linux

package session

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentty/agentty/internal/procfile"
	"github.com/agentty/agentty/internal/record"
)

// Foreground reports who reads the session's input now: for a PTY the
// terminal's foreground process group (tpgid from /proc/ROOT/stat), for
// pipes the root's group. The policy uses it to tell a shell reading
// command lines from a program reading its own input.
//
// It runs on every send_input, so each /proc file is read once per call
// (the root's stat gives both its group and the terminal's) and through
// procReader's raw syscalls.
func (s *Session) Foreground() (Foreground, error) {
	if isDone(s.done) {
		return Foreground{}, s.exitedErr()
	}
	r := procReaders.Get().(*procReader)
	defer procReaders.Put(r)
	root := s.PID()
	f := Foreground{PGID: root, PID: root}
	r.setPath(root, -1, "stat")
	data, err := r.readSeq(false)
	if err != nil && s.Mode == record.ModePTY {
		return Foreground{}, fmt.Errorf("foreground of %s: %w", s.ID, err)
	}
	rootStat := parseProcStat(data)
	if s.Mode == record.ModePTY && rootStat.tpgid > 0 {
		f.PGID, f.PID = rootStat.tpgid, rootStat.tpgid
	}
	// The leader's name is the comm its stat shows (the same as its comm
	// file), taken from the stat read for the walk when it is walked.
	haveComm := f.PID == root && err == nil
	if haveComm {
		f.Comm = string(rootStat.comm)
	}
	// Children by parentage (/proc/PID/task/TID/children): a few small
	// reads for a session's handful of processes, where scanning every
	// process's environment for the session marker costs ~1 ms.
	queue := []int{root}
	var tids []int
	leader := -1 // index of f.PID in f.Procs
	for len(queue) > 0 && len(f.Procs) < maxForegroundProcs {
		pid := queue[0]
		queue = queue[1:]
		p := ProcArgs{PID: pid, PGID: rootStat.pgrp}
		alone := rootStat.alone
		if pid != root {
			st, ok := r.stat(pid)
			p.PGID, alone = st.pgrp, st.alone
			if pid == f.PID && ok {
				f.Comm, haveComm = string(st.comm), true
			}
		}
		p.Args = r.cmdline(pid)
		if pid == f.PID {
			leader = len(f.Procs)
		}
		f.Procs = append(f.Procs, p)
		queue, tids = r.children(pid, alone, queue, tids[:0])
	}
	if !haveComm {
		f.Comm = r.comm(f.PID)
	}
	if leader >= 0 {
		f.Args = f.Procs[leader].Args
	} else {
		f.Args = r.cmdline(f.PID)
	}
	r.setPath(f.PID, -1, "cwd")
	f.Cwd, _ = r.readlink()
	return f, nil
}

// procStat is what the foreground look uses of a /proc/PID/stat.
type procStat struct {
	pgrp, tpgid int // 0 where unreadable
	// alone: a single live thread (num_threads 1, not a zombie), which is
	// the process itself, so its task directory need not be listed.
	alone bool
	comm  []byte // the name between the parentheses; aliases the data
}

// parseProcStat decodes the fields of a /proc/PID/stat line it needs; a
// line it cannot decode gives the zero procStat.
func parseProcStat(data []byte) procStat {
	var st procfile.Stat
	if !procfile.ParseStat(data, &st) {
		return procStat{}
	}
	return procStat{
		pgrp:  st.PGrp,
		tpgid: st.TPGid,
		alone: st.NumThreads == 1 && st.State != 'Z' && st.State != 'X',
		comm:  st.Comm,
	}
}

// children appends pid's children, from every thread's children file, to
// queue; alone says pid is its only thread; tids is scratch.
func (r *procReader) children(pid int, alone bool, queue, tids []int) ([]int, []int) {
	if alone {
		tids = append(tids, pid)
	} else {
		r.setPath(pid, -1, "task")
		tids = r.tids(tids)
	}
	for _, t := range tids {
		r.setPath(pid, t, "children")
		b, err := r.readSeq(true)
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				queue = append(queue, c)
			}
		}
	}
	return queue, tids
}

// stat reads pid's stat; ok is false when it cannot be read. The comm
// in it is valid until the next read.
func (r *procReader) stat(pid int) (procStat, bool) {
	r.setPath(pid, -1, "stat")
	data, err := r.readSeq(false)
	if err != nil {
		return procStat{}, false
	}
	return parseProcStat(data), true
}

func (r *procReader) cmdline(pid int) []string {
	r.setPath(pid, -1, "cmdline")
	b, err := r.read()
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func (r *procReader) comm(pid int) string {
	r.setPath(pid, -1, "comm")
	b, err := r.readSeq(false)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
