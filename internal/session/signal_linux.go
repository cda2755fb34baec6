package session

import (
	"syscall"

	"golang.org/x/sys/unix"
)

func unixSignalName(sig syscall.Signal) string { return unix.SignalName(sig) }
