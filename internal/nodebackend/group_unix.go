//go:build unix

package nodebackend

import "syscall"

// ownGroup starts a process in its own process group.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
