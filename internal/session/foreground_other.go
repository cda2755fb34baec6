//go:build !linux

package session

import "errors"

// Foreground is the program that receives what is typed into a session.
type Foreground struct {
	PID      int
	Comm     string
	Cwd      string
	Args     []string
	Root     string
	RootArgs []string
}

// Foreground is only known on Linux.
func (s *Session) Foreground() (Foreground, error) {
	return Foreground{}, errors.New("foreground process: only supported on Linux")
}
