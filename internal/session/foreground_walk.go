package session

// procSource is what the foreground walk asks the OS of one process, for
// platforms that read processes one call at a time (macOS); Linux has its
// own walk over /proc.
type procSource interface {
	// group is pid's process group and command name; false when pid is gone.
	group(pid int) (pgid int, comm string, ok bool)
	// args is pid's command line, nil when it cannot be read.
	args(pid int) []string
	// children are the pids whose parent is pid.
	children(pid int) []int
}

// walkForeground fills f.Procs with the processes below f's root, root
// first, breadth first, and f.Comm and f.Args with those of f.PID (the
// foreground group's leader), reading it on its own when it is not below
// the root. A process that ends during the walk is left out.
func walkForeground(f *Foreground, root int, src procSource) {
	leader := -1
	queue := []int{root}
	for len(queue) > 0 && len(f.Procs) < maxForegroundProcs {
		pid := queue[0]
		queue = queue[1:]
		pgid, comm, ok := src.group(pid)
		if !ok {
			continue
		}
		if pid == f.PID {
			leader, f.Comm = len(f.Procs), comm
		}
		f.Procs = append(f.Procs, ProcArgs{PID: pid, PGID: pgid, Args: src.args(pid)})
		queue = append(queue, src.children(pid)...)
	}
	if leader >= 0 {
		f.Args = f.Procs[leader].Args
		return
	}
	if _, comm, ok := src.group(f.PID); ok {
		f.Comm, f.Args = comm, src.args(f.PID)
	}
}
