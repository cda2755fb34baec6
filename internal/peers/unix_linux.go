//go:build linux

package peers

import (
	"net"

	"golang.org/x/sys/unix"
)

// soPeerPidfd is SO_PEERPIDFD (Linux 6.5): a pidfd of the process that
// connected, which names it even after its pid is reused.
const soPeerPidfd = 77

// Of is c's peer from SO_PEERCRED.
func Of(c *net.UnixConn) (Cred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Cred{}, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Cred{}, err
	}
	if credErr != nil {
		return Cred{}, credErr
	}
	return Cred{UID: int(cred.Uid), PID: int(cred.Pid)}, nil
}

// unixPeer is the pid of the process that connected c (SO_PEERCRED) and a
// pidfd that pins it (SO_PEERPIDFD, else pidfd_open of the pid); the
// caller closes the pidfd. An exited peer is an error: a process could
// connect, hand the socket to its parent and exit, leaving its pid to be
// judged, or reused by another.
func unixPeer(c *net.UnixConn) (pid, pidfd int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, -1, err
	}
	var cred *unix.Ucred
	var credErr error
	pidfd = -1
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		if p, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, soPeerPidfd); err == nil {
			pidfd = p
		}
	}); err != nil {
		return 0, -1, err
	}
	if credErr != nil {
		return 0, -1, credErr
	}
	pid = int(cred.Pid)
	if pidfd < 0 {
		if pidfd, err = unix.PidfdOpen(pid, 0); err != nil {
			return pid, -1, errExited
		}
	}
	if !alive(pidfd) {
		unix.Close(pidfd)
		return pid, -1, errExited
	}
	return pid, pidfd, nil
}

// alive reports whether the process pidfd names has not been reaped (a
// zombie's parent and ancestors are still there to be judged).
func alive(pidfd int) bool {
	return unix.PidfdSendSignal(pidfd, 0, nil, 0) == nil
}

func closePidfd(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}
