// Package darwinproc reads what macOS's libproc knows about a process: CPU
// times and thread states, open descriptors and the sockets among them,
// working directory, parent and start time, unique ids. It is what
// /proc is on Linux, for the darwin build of the engine.
//
// The calls go to libSystem's proc_pidinfo and proc_pidfdinfo through
// trampolines, the way golang.org/x/sys/unix calls libSystem on darwin
// (//go:cgo_import_dynamic, an ABI0 JMP per function, syscall.syscall6 to
// switch to the C stack), so the build needs no cgo. The other way,
// syscall.Syscall6(SYS_PROC_INFO, ...), is in Go 1.26 a raw SYSCALL / SVC
// 0x80 trap: Apple documents no system call ABI and changes it between
// releases, which is why Go itself left raw traps on darwin in 1.12.
//
// libproc returns 0 on failure and syscall.syscall6 reports errno only when
// the result is -1, so the errno is lost; a failed call is classified by
// kill(pid, 0) instead (gone, someone else's, or there but without that
// information: a zombie has no task to report on).
//
// The kernel's structures are decoded by pure functions over byte slices,
// in files without a build constraint, so their tests run on Linux with
// hand-built buffers; layout_check.go pins every offset against a
// transcription of XNU's bsd/sys/proc_info.h at compile time.
package darwinproc

import (
	"errors"
	"os"
)

var (
	// ErrNoProcess: no process has that pid (it ended, or never was).
	ErrNoProcess = errors.New("no such process")
	// ErrPermission: the process belongs to another user.
	ErrPermission = os.ErrPermission
	// ErrNoInfo: the process exists but the kernel gave nothing for the
	// question: a zombie has no task, a thread or descriptor ended between
	// listing and asking.
	ErrNoInfo = errors.New("the kernel has no such information for the process")
	// ErrShort: the kernel returned fewer bytes than the structure holds.
	ErrShort = errors.New("the kernel's answer is shorter than its structure")
)
