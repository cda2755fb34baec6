package darwinproc

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

var libc_proc_pid_rusage_trampoline_addr uintptr

//go:cgo_import_dynamic libc_proc_pid_rusage proc_pid_rusage "/usr/lib/libSystem.B.dylib"

// MemoryOf is pid's memory from proc_pid_rusage (RUSAGE_INFO_V0), which,
// unlike proc_pidinfo, returns -1 and keeps errno on failure.
func MemoryOf(pid int) (Memory, error) {
	if pid <= 0 {
		return Memory{}, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	buf := make([]byte, sizeRusageV0)
	_, _, errno := syscall6(libc_proc_pid_rusage_trampoline_addr, uintptr(pid), rusageFlavorV0,
		uintptr(unsafe.Pointer(&buf[0])), 0, 0, 0)
	switch {
	case errno == 0:
		return decodeRusage(buf)
	case errors.Is(errno, syscall.ESRCH):
		return Memory{}, fmt.Errorf("proc_pid_rusage of pid %d: %w", pid, ErrNoProcess)
	case errors.Is(errno, syscall.EPERM):
		return Memory{}, fmt.Errorf("proc_pid_rusage of pid %d: %w", pid, ErrPermission)
	}
	return Memory{}, fmt.Errorf("proc_pid_rusage of pid %d: %w", pid, errno)
}
