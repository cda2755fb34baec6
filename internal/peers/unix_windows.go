//go:build windows

package peers

import (
	"fmt"
	"net"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/agentty/agentty/internal/winacl"
)

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID (afunix.h,
// _WSAIOR(IOC_VENDOR, 256)): the pid Windows recorded at connect.
const sioAFUnixGetPeerPID = windows.IOC_OUT | windows.IOC_VENDOR | 256

// Of is c's peer: its pid from SIO_AF_UNIX_GETPEERPID, its user from that
// process's token. Windows keeps no user on the socket itself and gives no
// handle that pins the process, so a peer that exits before the token is
// read is refused (OpenProcess fails); one whose pid was reused within
// that moment would be judged by the new process's user.
func Of(c *net.UnixConn) (Cred, error) {
	pid, err := peerPID(c)
	if err != nil {
		return Cred{}, err
	}
	sid, err := winacl.ProcessUserSID(pid)
	if err != nil {
		return Cred{}, err
	}
	return Cred{UID: -1, PID: pid, SID: sid}, nil
}

func peerPID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var pid uint32
	var ioErr error
	if err := raw.Control(func(fd uintptr) {
		var n uint32
		ioErr = windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0,
			(*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0)
	}); err != nil {
		return 0, err
	}
	if ioErr != nil {
		return 0, fmt.Errorf("SIO_AF_UNIX_GETPEERPID: %w", ioErr)
	}
	return int(pid), nil
}

// Self is this process as a peer would see it.
func Self() (Cred, error) {
	sid, err := winacl.UserSID()
	if err != nil {
		return Cred{}, err
	}
	return Cred{UID: -1, PID: os.Getpid(), SID: sid}, nil
}

// unixPeer is the pid of the process that connected c; no pidfd exists to
// pin it. Held knows no sessions here (no sandbox).
func unixPeer(c *net.UnixConn) (pid, pidfd int, err error) {
	pid, err = peerPID(c)
	if err != nil {
		return 0, -1, err
	}
	return pid, -1, nil
}

func alive(int) bool { return true }

func closePidfd(int) {}
