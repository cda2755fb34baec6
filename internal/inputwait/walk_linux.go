//go:build linux && (amd64 || arm64)

package inputwait

import (
	"sync/atomic"

	"github.com/agentty/agentty/internal/procfile"
)

// localMember is a member the walk found; its thread ids are
// in.tids[start:end].
type localMember struct {
	member
	st         statInfo
	start, end int
}

// maxWalk bounds the descendant walk so a fork bomb cannot make one probe
// arbitrarily slow.
const maxWalk = 4096

// noChildrenFiles records that this kernel lacks /proc/PID/task/TID/children
// (CONFIG_PROC_CHILDREN=n); the walk then derives children from ppid.
var noChildrenFiles atomic.Bool

// pidPair is one (pid, ppid) edge of the process table scan.
type pidPair struct{ pid, ppid int }

// walk visits Root and its descendants, collecting the members of the
// inspected group. It reports false when Root itself is gone or a zombie.
// Walking the tree instead of scanning /proc keeps each probe proportional
// to the program's own processes.
func (in *inspector) walk(root int) bool {
	in.queue = append(in.queue[:0], root)
	leaderFound := false
	for i := 0; i < len(in.queue) && i < maxWalk; i++ {
		pid := in.queue[i]
		if pid == in.self {
			continue
		}
		m, ok := in.loadProcess(pid)
		if !ok || (pid == root && isZombie(m.st.state)) {
			in.tids = in.tids[:m.start]
			if pid == root {
				return false
			}
			continue
		}
		if pid == root {
			in.rootSid = m.st.session
			if !in.ptyMode {
				// Pipe children are started with Setpgid, so the group is
				// the root's own.
				in.pgid = m.st.pgrp
			}
		}
		in.appendChildren(pid, in.tids[m.start:m.end])
		if in.pgid > 0 && m.st.pgrp == in.pgid {
			in.members = append(in.members, m)
			if pid == in.pgid {
				leaderFound = true
			}
		} else {
			in.tids = in.tids[:m.start]
		}
	}
	// A foreground group whose leader is not below Root (it was reparented
	// after a double fork, or exited leaving the rest of its group) can only
	// be found by scanning; the session check keeps strangers out.
	if !leaderFound && in.ptyMode && in.pgid > 0 {
		in.scanGroup()
	}
	return true
}

func isZombie(state byte) bool { return state == 'Z' || state == 'X' || state == 'x' }

// loadProcess reads pid's main thread's stat and lists its threads into
// in.tids. ok is false if the process vanished.
func (in *inspector) loadProcess(pid int) (m localMember, ok bool) {
	m.pid = pid
	m.start = len(in.tids)
	m.end = m.start
	b, err := in.readProc(pid, pid, leafStat, 1<<16)
	if err != nil || !parseStat(b, &m.st) {
		return m, false
	}
	m.comm = m.st.comm
	// A single live thread is the process itself: its task directory
	// would list just pid. A thread started after this read is missed as
	// it would be by a listing made at the same moment.
	if m.st.threads == 1 && !isZombie(m.st.state) {
		in.tids = append(in.tids, pid)
	} else if in.listTasks(pid) != nil {
		in.tids = in.tids[:m.start]
	}
	m.end = len(in.tids)
	return m, m.end > m.start
}

// appendChildren queues the children of every thread of pid.
func (in *inspector) appendChildren(pid int, tids []int) {
	if !noChildrenFiles.Load() {
		for _, tid := range tids {
			b, err := in.readProc(pid, tid, leafChildren, 1<<20)
			if err == nil {
				for i := 0; i < len(b); {
					if v, ok := procfile.Atoi(nextField(b, &i)); ok {
						in.queue = append(in.queue, v)
					}
				}
				continue
			}
			// ENOENT for a thread that still exists means the kernel has
			// no children files at all.
			in.path = procfile.Path(in.path, pid, tid, "", -1)
			if err == errGone && statPath(in.path, &in.stat) == nil {
				noChildrenFiles.Store(true)
				break
			}
		}
		if !noChildrenFiles.Load() {
			return
		}
	}
	if !in.haveTable {
		in.buildTable()
	}
	for _, e := range in.table {
		if e.ppid == pid {
			in.queue = append(in.queue, e.pid)
		}
	}
}

// buildTable scans /proc once per probe for (pid, ppid) edges; only used
// when children files are missing.
func (in *inspector) buildTable() {
	in.haveTable = true
	in.table = in.table[:0]
	in.path = append(append(in.path[:0], "/proc"...), 0)
	pids, _ := readDirInts(in.path, in.dents, in.scan[:0])
	in.scan = pids
	var st statInfo
	for _, pid := range pids {
		in.path = procfile.Path(in.path, pid, -1, "stat", -1)
		b, err := readPath(in.path, &in.buf, 1<<16, false)
		if err != nil || !parseStat(b, &st) {
			continue
		}
		in.table = append(in.table, pidPair{pid, st.ppid})
	}
}

// scanGroup adds members of the foreground group that the walk missed.
func (in *inspector) scanGroup() {
	in.path = append(append(in.path[:0], "/proc"...), 0)
	pids, _ := readDirInts(in.path, in.dents, in.scan[:0])
	in.scan = pids
	var st statInfo
	for _, pid := range pids {
		if pid == in.self || in.visited(pid) {
			continue
		}
		in.path = procfile.Path(in.path, pid, -1, "stat", -1)
		b, err := readPath(in.path, &in.buf, 1<<16, false)
		if err != nil || !parseStat(b, &st) || st.pgrp != in.pgid || st.session != in.rootSid {
			continue
		}
		if m, ok := in.loadProcess(pid); ok {
			in.members = append(in.members, m)
		} else {
			in.tids = in.tids[:m.start]
		}
	}
}

// visited reports whether the walk already looked at pid.
func (in *inspector) visited(pid int) bool {
	for _, q := range in.queue {
		if q == pid {
			return true
		}
	}
	return false
}
