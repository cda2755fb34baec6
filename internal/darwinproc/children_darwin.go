package darwinproc

import (
	"fmt"
	"unsafe"
)

var libc_proc_listpids_trampoline_addr uintptr

//go:cgo_import_dynamic libc_proc_listpids proc_listpids "/usr/lib/libSystem.B.dylib"

// proc_listpids type PROC_PPID_ONLY: the processes whose parent is typeinfo.
const listPPIDOnly = 6

// Children are the pids whose parent is pid now (proc_listpids
// PROC_PPID_ONLY: the kernel filters, so only the children are copied,
// not every process's kinfo_proc). libproc answers 0 both for no child
// and for a failure, so a pid that does not exist has no children.
func Children(pid int) ([]int, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
	}
	b, err := grow(func(buf []byte) (int, error) {
		r, _, _ := syscall6(libc_proc_listpids_trampoline_addr, listPPIDOnly, uintptr(pid),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
		return int(int32(r)), nil
	}, 4, 64)
	if err != nil {
		return nil, err
	}
	return decodePIDs(b), nil
}
