//go:build unix && !linux

package sshtest

import "syscall"

// sshdAttr puts sshd in a group of its own; without Pdeathsig a test
// binary that crashes leaves it running.
func sshdAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
