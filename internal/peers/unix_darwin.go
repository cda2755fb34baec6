//go:build darwin

package peers

import (
	"net"

	"golang.org/x/sys/unix"
)

// Of is c's peer: its user from LOCAL_PEERCRED (the credentials the
// kernel took at connect) and its pid from LOCAL_PEERPID.
func Of(c *net.UnixConn) (Cred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Cred{}, err
	}
	var cred *unix.Xucred
	var pid int
	var credErr, pidErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		pid, pidErr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return Cred{}, err
	}
	if credErr != nil {
		return Cred{}, credErr
	}
	if pidErr != nil {
		return Cred{}, pidErr
	}
	return Cred{UID: int(cred.Uid), PID: pid}, nil
}

// unixPeer is the pid of the process that connected c. macOS has no pidfd
// to pin it with; Held knows no sessions there (no sandbox), so a reused
// pid cannot be judged wrongly.
func unixPeer(c *net.UnixConn) (pid, pidfd int, err error) {
	cred, err := Of(c)
	if err != nil {
		return 0, -1, err
	}
	return cred.PID, -1, nil
}

func alive(int) bool { return true }

func closePidfd(int) {}
