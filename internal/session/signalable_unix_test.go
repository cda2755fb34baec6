//go:build unix

package session

import "golang.org/x/sys/unix"

// signalable says whether pid names a process this one may signal.
func signalable(pid int) bool { return unix.Kill(pid, 0) == nil }
