//go:build linux

package proctree

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/procfile"
)

// procLister lists every live process from /proc with raw syscalls into
// buffers it keeps: the portable tree lists them all on a clock
// (trackEvery), and os.ReadFile's allocations and extra syscalls would
// triple the cost. Not safe for concurrent use.
type procLister struct {
	dents, path, buf []byte
	pids             []int
}

// list returns every live (non-zombie) process. A process that exits
// while the list is read is left out.
func (l *procLister) list() ([]Proc, error) {
	if l.dents == nil {
		l.dents = make([]byte, 32<<10)
	}
	dir, err := procfile.Open(append(l.path[:0], "/proc\x00"...), unix.O_DIRECTORY)
	if err != nil {
		return nil, fmt.Errorf("proctree: list /proc: %w", err)
	}
	l.pids, err = procfile.ReadDirNumbers(dir, l.dents, l.pids[:0])
	unix.Close(dir)
	if err != nil {
		return nil, fmt.Errorf("proctree: list /proc: %w", err)
	}
	out := make([]Proc, 0, len(l.pids))
	var st procfile.Stat
	for _, pid := range l.pids {
		l.path = procfile.Path(l.path, pid, -1, "stat", -1)
		fd, err := procfile.Open(l.path, 0)
		if err != nil {
			continue
		}
		b, err := procfile.ReadAll(fd, &l.buf, 64<<10, true, false)
		unix.Close(fd)
		if err != nil || !procfile.ParseStat(b, &st) || st.Fields < 19 {
			continue
		}
		if ps := (procStat{State: st.State}); ps.dead() {
			continue
		}
		out = append(out, Proc{PID: pid, PPID: st.PPid, PGID: st.PGrp, SID: st.Session, StartTime: st.StartTime})
	}
	return out, nil
}

// listProcs lists every live process (procLister.list) for one caller.
func listProcs() ([]Proc, error) {
	var l procLister
	return l.list()
}

// procStart returns pid's start time, or false if it is gone or a zombie.
func procStart(pid int) (uint64, bool) {
	st, err := readStat(pid)
	if err != nil || st.dead() {
		return 0, false
	}
	return st.StartTime, true
}
