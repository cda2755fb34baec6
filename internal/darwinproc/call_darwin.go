package darwinproc

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// syscall.syscall6 calls a C function on the system stack and tells the
// scheduler, as x/sys/unix's darwin calls do; package syscall exports the
// name for this (go.dev/issue/67401).
//
//go:linkname syscall6 syscall.syscall6
func syscall6(fn, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2 uintptr, err syscall.Errno)

var libc_proc_pidinfo_trampoline_addr uintptr

//go:cgo_import_dynamic libc_proc_pidinfo proc_pidinfo "/usr/lib/libSystem.B.dylib"

// proc_pidinfo flavors (bsd/sys/proc_info.h).
const (
	flavorListFDs     = 1  // PROC_PIDLISTFDS
	flavorBSDInfo     = 3  // PROC_PIDTBSDINFO
	flavorTaskInfo    = 4  // PROC_PIDTASKINFO
	flavorThreadInfo  = 5  // PROC_PIDTHREADINFO
	flavorListThreads = 6  // PROC_PIDLISTTHREADS
	flavorVnodePath   = 9  // PROC_PIDVNODEPATHINFO
	flavorUniqID      = 17 // PROC_PIDUNIQIDENTIFIERINFO (proc_info_private.h)
)

// proc_pidfdinfo flavor PROC_PIDFDSOCKETINFO.
const flavorFDSocket = 3

var libc_proc_pidfdinfo_trampoline_addr uintptr

//go:cgo_import_dynamic libc_proc_pidfdinfo proc_pidfdinfo "/usr/lib/libSystem.B.dylib"

// pidinfo is proc_pidinfo(pid, flavor, arg, buf, len(buf)): the number of
// bytes the kernel wrote.
func pidinfo(pid, flavor int, arg uint64, buf []byte) (int, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	r, _, _ := syscall6(libc_proc_pidinfo_trampoline_addr, uintptr(pid), uintptr(flavor), uintptr(arg),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0)
	if n := int(int32(r)); n > 0 {
		return n, nil
	}
	return 0, fmt.Errorf("proc_pidinfo flavor %d of pid %d: %w", flavor, pid, failure(pid))
}

// pidfdinfo is proc_pidfdinfo(pid, fd, flavor, buf, len(buf)).
func pidfdinfo(pid, fd, flavor int, buf []byte) (int, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	r, _, _ := syscall6(libc_proc_pidfdinfo_trampoline_addr, uintptr(pid), uintptr(fd), uintptr(flavor),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0)
	if n := int(int32(r)); n > 0 {
		return n, nil
	}
	return 0, fmt.Errorf("proc_pidfdinfo flavor %d of pid %d fd %d: %w", flavor, pid, fd, failure(pid))
}

// failure says why a libproc call on pid gave nothing, errno being lost
// (see the package comment).
func failure(pid int) error {
	switch err := unix.Kill(pid, 0); {
	case errors.Is(err, unix.ESRCH):
		return ErrNoProcess
	case errors.Is(err, unix.EPERM):
		return ErrPermission
	default:
		return ErrNoInfo
	}
}

// list calls a listing flavor of proc_pidinfo through grow. libproc's 0
// is also an empty list: a process without descriptors, a zombie without
// threads; that the process is there tells it from a failure.
func list(pid, flavor int, entry, guess int) ([]byte, error) {
	return grow(func(buf []byte) (int, error) {
		n, err := pidinfo(pid, flavor, 0, buf)
		if errors.Is(err, ErrNoInfo) {
			return 0, nil
		}
		return n, err
	}, entry, guess)
}

// tbFrequency is the timebase's ticks per second (see ticksToNanos); 0
// when the kernel does not say.
var tbFrequency = sync.OnceValue(func() uint64 {
	b, err := unix.SysctlRaw("hw.tbfrequency")
	switch {
	case err != nil:
		return 0
	case len(b) == 8:
		return le.Uint64(b)
	case len(b) == 4:
		return uint64(le.Uint32(b))
	}
	return 0
})
