//go:build unix

package httpserver

import "syscall"

// setRcvBuf sets a socket's receive buffer before it connects.
func setRcvBuf(fd uintptr, n int) {
	_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
}
