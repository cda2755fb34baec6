package darwinproc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// BSDInfo is pid's PROC_PIDTBSDINFO: parent, group, terminal, start time.
// The kernel answers it for the caller's own processes (or to root).
func BSDInfo(pid int) (BSD, error) {
	buf := make([]byte, sizeBSDInfo)
	n, err := pidinfo(pid, flavorBSDInfo, 0, buf)
	if err != nil {
		return BSD{}, err
	}
	return decodeBSDInfo(buf[:n])
}

// UniqueIDs is pid's PROC_PIDUNIQIDENTIFIERINFO, which the kernel answers
// for any process.
func UniqueIDs(pid int) (IDs, error) {
	buf := make([]byte, sizeUniqIDInfo)
	n, err := pidinfo(pid, flavorUniqID, 0, buf)
	if err != nil {
		return IDs{}, err
	}
	return decodeUniqIDs(buf[:n])
}

// FDs lists pid's open descriptors (PROC_PIDLISTFDS).
func FDs(pid int) ([]FD, error) {
	b, err := list(pid, flavorListFDs, sizeFDInfo, 64)
	if err != nil {
		return nil, err
	}
	return decodeFDs(b), nil
}

// Socket is what the kernel tells of pid's socket descriptor fd
// (proc_pidfdinfo PROC_PIDFDSOCKETINFO). A descriptor that is not a socket
// (or was closed) gives ErrNoInfo.
func Socket(pid, fd int) (SocketInfo, error) {
	buf := make([]byte, sizeSocketFDInfo)
	n, err := pidfdinfo(pid, fd, flavorFDSocket, buf)
	if err != nil {
		return SocketInfo{}, err
	}
	return decodeSocket(buf[:n])
}

// Cwd is pid's working directory (PROC_PIDVNODEPATHINFO).
func Cwd(pid int) (string, error) {
	buf := make([]byte, sizeVnodePathInfo)
	n, err := pidinfo(pid, flavorVnodePath, 0, buf)
	if err != nil {
		return "", err
	}
	return decodeCwd(buf[:n])
}

// ProcArgs is pid's executable, arguments and environment
// (sysctl kern.procargs2). The kernel gives them for the caller's own
// processes; for a platform binary SIP may withhold the environment.
func ProcArgs(pid int) (Args, error) {
	if pid <= 0 {
		return Args{}, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return Args{}, fmt.Errorf("kern.procargs2 of pid %d: %w", pid, failure(pid))
	}
	return parseProcArgs(b)
}
