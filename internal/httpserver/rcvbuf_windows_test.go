//go:build windows

package httpserver

import "syscall"

// setRcvBuf sets a socket's receive buffer before it connects.
func setRcvBuf(fd uintptr, n int) {
	_ = syscall.SetsockoptInt(syscall.Handle(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
