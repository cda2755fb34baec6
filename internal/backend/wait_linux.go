package backend

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitExit reaps pid and returns its exit. It waits on a non-blocking pidfd
// through the netpoller, so a session waiting for its program costs a parked
// goroutine instead of an OS thread blocked in wait4 (os/exec's Wait).
func waitExit(p *os.Process, ru *rootUsage) (Exit, error) {
	pid := p.Pid
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		// Kernels before 5.10: fall back to a blocking wait.
		st, werr := p.Wait()
		if werr != nil {
			return Exit{Code: -1}, werr
		}
		if r, ok := st.SysUsage().(*syscall.Rusage); ok {
			ru.cpu = time.Duration(r.Utime.Nano() + r.Stime.Nano())
			ru.maxRSS = r.Maxrss * 1024
		}
		return exitOf(st.Sys().(syscall.WaitStatus)), nil
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	defer p.Release()
	rc, err := f.SyscallConn()
	if err != nil {
		return Exit{Code: -1}, err
	}
	var info unix.Siginfo
	var rus unix.Rusage
	var werr error
	err = rc.Read(func(fd uintptr) bool {
		info = unix.Siginfo{}
		werr = unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG, &rus)
		switch {
		case errors.Is(werr, unix.EAGAIN), werr == nil && childPid(&info) == 0:
			werr = nil
			return false // still running: park until the pidfd is readable
		case errors.Is(werr, unix.EINTR):
			return false
		}
		return true
	})
	if err != nil {
		return Exit{Code: -1}, err
	}
	if werr != nil {
		return Exit{Code: -1}, fmt.Errorf("waitid %d: %w", pid, werr)
	}
	ru.cpu = time.Duration(rus.Utime.Nano() + rus.Stime.Nano())
	ru.maxRSS = rus.Maxrss * 1024 // kilobytes on Linux
	return exitOfSiginfo(&info), nil
}

// si_code values for SIGCHLD (include/uapi/asm-generic/siginfo.h).
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)

// sigchld mirrors the SIGCHLD member of siginfo_t's union on Linux.
type sigchld struct {
	signo, errno, code, _ int32
	pid                   int32
	uid                   uint32
	status                int32
}

func childPid(info *unix.Siginfo) int32 {
	return (*sigchld)(unsafe.Pointer(info)).pid
}

func exitOfSiginfo(info *unix.Siginfo) Exit {
	c := (*sigchld)(unsafe.Pointer(info))
	switch c.code {
	case cldExited:
		return Exit{Code: int(c.status)}
	case cldKilled, cldDumped:
		return Exit{Code: -1, Signal: syscall.Signal(c.status)}
	}
	return Exit{Code: -1}
}

func exitOf(ws syscall.WaitStatus) Exit {
	if ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal()}
	}
	return Exit{Code: ws.ExitStatus()}
}
