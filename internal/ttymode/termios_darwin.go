package ttymode

import "golang.org/x/sys/unix"

const (
	getTermios = unix.TIOCGETA
	vdisable   = 0xff // _POSIX_VDISABLE
)
