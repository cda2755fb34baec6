//go:build unix

package bench

import (
	"os"
	"syscall"
)

// killGroup kills p's process group (p leads it).
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
