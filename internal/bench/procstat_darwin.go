package bench

import (
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/darwinproc"
	"github.com/agentty/agentty/internal/guardstart"
)

// guardMemory reads the memory of the server's guard: its child running
// "agentty __guard".
func guardMemory(server int) (rss, anon int64, err error) {
	kids, err := darwinproc.Children(server)
	if err != nil {
		return 0, 0, err
	}
	for _, pid := range kids {
		a, err := darwinproc.ProcArgs(pid)
		if err != nil || len(a.Argv) != 2 || a.Argv[1] != guardstart.Arg {
			continue
		}
		return benchResident(pid)
	}
	return 0, 0, fmt.Errorf("server %d runs no guard (a child %q)", server, guardstart.Arg)
}

// benchRSSKiB reads a process's resident size (proc_pid_rusage).
func benchRSSKiB(pid int) (int64, error) {
	m, err := darwinproc.MemoryOf(pid)
	if err != nil {
		return 0, err
	}
	return int64(m.Resident / 1024), nil
}

// benchResident reads a process's resident size and, for what it holds of
// its own, its physical footprint: macOS has no RssAnon, and the
// footprint (its dirty and compressed pages) is the nearest.
func benchResident(pid int) (rss, anon int64, err error) {
	m, err := darwinproc.MemoryOf(pid)
	if err != nil {
		return 0, 0, err
	}
	return int64(m.Resident / 1024), int64(m.Footprint / 1024), nil
}

// ProcessCPU is pid's CPU time so far, user and system, every thread's,
// ended ones included (proc_pidinfo PROC_PIDTASKINFO), to the nanosecond.
func ProcessCPU(pid int) (time.Duration, error) {
	t, err := darwinproc.TaskInfo(pid)
	if err != nil {
		return 0, err
	}
	return time.Duration(t.TotalUser + t.TotalSystem), nil
}

// openFDs counts a process's open descriptors (PROC_PIDLISTFDS).
func openFDs(pid int) (int, error) {
	fds, err := darwinproc.FDs(pid)
	return len(fds), err
}
