//go:build unix

package httpserver

import (
	"net"
	"syscall"
)

// peekSize is how much of a new connection's first bytes peek looks at:
// a client's request headers fit.
const peekSize = 4096

// peek returns what a newly accepted connection has sent already, without
// consuming it or waiting: under load the server accepts late, and a
// client's whole request is then waiting in the socket, so a connection
// with the token is proven before it is counted and can never be the one
// closed for a newcomer.
func peek(c net.Conn) []byte {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	buf := make([]byte, peekSize)
	n := 0
	_ = rc.Read(func(fd uintptr) bool {
		n, _, err = syscall.Recvfrom(int(fd), buf, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // never wait for data
	})
	if err != nil || n <= 0 {
		return nil
	}
	return buf[:n]
}
