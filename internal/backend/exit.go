package backend

import "syscall"

// Exit is how a root process ended.
type Exit struct {
	Code   int            // exit code; -1 when killed by a signal
	Signal syscall.Signal // the killing signal, 0 for a normal exit
	// Lost is set, with the reason, when how the process ended cannot be
	// known: the connection to its remote host dropped.
	Lost string
}
