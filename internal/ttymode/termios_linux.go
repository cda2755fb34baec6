package ttymode

import "golang.org/x/sys/unix"

const (
	getTermios = unix.TCGETS
	vdisable   = 0 // _POSIX_VDISABLE
)
