//go:build !linux

package session

import "errors"

// Foreground says who receives what is typed into a session.
type Foreground struct {
	PGID  int
	PID   int
	Comm  string
	Args  []string
	Cwd   string
	Procs []ProcArgs
}

// ProcArgs is one process of a session and its command line.
type ProcArgs struct {
	PID, PGID int
	Args      []string
}

// Foreground is only known on Linux.
func (s *Session) Foreground() (Foreground, error) {
	return Foreground{}, errors.New("foreground process: only supported on Linux")
}
