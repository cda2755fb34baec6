//go:build linux

package proctree

import (
	"bytes"
	"os"
	"strconv"
	"sync"
)

// childrenFilesOK reports whether the kernel exposes
// /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN). Without it children are
// found by scanning every process's parent pid.
var childrenFilesOK = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/thread-self/children")
	return err == nil
})

// snapshot caches what one search has read from /proc so each process is
// parsed at most once per search.
type snapshot struct {
	stats   map[int]procStat
	kids    map[int][]int // by parent pid; filled by scan
	scanned bool
}

func newSnapshot() *snapshot {
	return &snapshot{stats: make(map[int]procStat)}
}

func (s *snapshot) stat(pid int) (procStat, bool) {
	if st, ok := s.stats[pid]; ok {
		return st, true
	}
	if s.scanned {
		return procStat{}, false
	}
	st, err := readStat(pid)
	if err != nil {
		return procStat{}, false
	}
	s.stats[pid] = st
	return st, true
}

func (s *snapshot) children(pid int) []int {
	if childrenFilesOK() {
		return taskChildren(pid)
	}
	s.scan()
	return s.kids[pid]
}

// scan reads every process's stat once and indexes children by parent.
// Errors leave the index empty; callers then see fewer children, which only
// means a later rescan has more work.
func (s *snapshot) scan() {
	if s.scanned {
		return
	}
	s.scanned = true
	s.kids = make(map[int][]int)
	pids, err := listPIDs()
	if err != nil {
		return
	}
	for _, pid := range pids {
		st, err := readStat(pid)
		if err != nil {
			continue
		}
		s.stats[pid] = st
		s.kids[st.PPID] = append(s.kids[st.PPID], pid)
	}
}

// taskChildren lists the children of every thread of pid; a child belongs to
// the thread that forked it, so reading only the main thread would miss some.
func taskChildren(pid int) []int {
	dir := procPath(pid, "task")
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	tids, _ := d.Readdirnames(-1)
	d.Close()
	var kids []int
	for _, tid := range tids {
		b, err := os.ReadFile(dir + "/" + tid + "/children")
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if k, err := strconv.Atoi(string(f)); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids
}

// collect returns the live processes in the trees below roots and below
// every process whose environment satisfies match (nil: no environment scan),
// skipping protected pids and everything below them.
func collect(roots []int, match func(env []byte) bool, prot protected) ([]Proc, error) {
	s := newSnapshot()
	queue := append([]int(nil), roots...)
	if match != nil {
		pids, err := listPIDs()
		if err != nil {
			return nil, err
		}
		var r envReader
		var inExec []int
		for _, pid := range pids {
			if prot.pids[pid] {
				continue
			}
			switch markedOrExec(pid, &r, match) {
			case marked:
				queue = append(queue, pid)
			case execing:
				inExec = append(inExec, pid)
			}
		}
		queue = append(queue, settleExec(inExec, &r, match)...)
	}
	seen := make(map[int]bool, len(queue))
	var out []Proc
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if pid <= 0 || seen[pid] || prot.pids[pid] {
			continue
		}
		seen[pid] = true
		st, ok := s.stat(pid)
		if !ok || st.dead() {
			continue // a zombie has already handed its children to a reaper
		}
		out = append(out, st.Proc)
		queue = append(queue, s.children(pid)...)
	}
	return out, nil
}
