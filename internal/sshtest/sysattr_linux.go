//go:build linux

package sshtest

import "syscall"

// sshdAttr puts sshd in a group of its own, killed when the test binary
// dies.
func sshdAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
