package session

// Foreground says who receives what is typed into a session.
type Foreground struct {
	// PGID is the terminal's foreground process group (PTY), or the root's
	// group (pipe); PID, Comm, Args and Cwd describe its leader.
	PGID int
	PID  int
	Comm string
	Args []string
	Cwd  string
	// Procs are the session's live processes, root first.
	Procs []ProcArgs
}

// maxForegroundProcs bounds the walk of a session's process tree.
const maxForegroundProcs = 4096

// ProcArgs is one process of a session and its command line.
type ProcArgs struct {
	PID, PGID int
	Args      []string
}
