//go:build linux || darwin

package httpserver

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// maxUnsent is the most a connection's kernel send queue holds beyond what
// the client's receive window takes.
const maxUnsent = 128 << 10

// limitUnsent caps the bytes the kernel keeps queued and not yet sent on
// c at maxUnsent (TCP_NOTSENT_LOWAT). Without it a loopback socket's send
// buffer grows to megabytes, takes a whole reply a client never reads, and
// the write returns: the stall is invisible to the write deadline
// (stallWriter), the connection is never cut, and each such connection
// pins that much kernel memory. With it the rest of the reply waits in
// the write, which fails after replyStall. Data the client's window lets
// through is not counted, so throughput to a reading client is unchanged.
func limitUnsent(c net.Conn) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, maxUnsent)
	})
}
