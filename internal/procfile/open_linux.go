//go:build linux

package procfile

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// atFDCWD is a variable so its negative value converts to uintptr.
var atFDCWD = unix.AT_FDCWD

// Open opens a NUL-terminated path (see Path) read-only and close-on-exec,
// with flags added (O_DIRECTORY for a listing). It calls openat directly:
// os.Open costs several more syscalls per /proc file (the runtime poller
// tries, and fails, to register it) and allocates. Errors are raw errnos.
func Open(path []byte, flags int) (int, error) {
	for {
		fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(atFDCWD),
			uintptr(unsafe.Pointer(&path[0])), uintptr(flags|unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(fd), nil
	}
}

// ReadDirNumbers appends the numeric entry names of an open directory
// (pids in /proc, tids in /proc/PID/task), read from its current position
// on, to out; dents is the getdents scratch. It reads until getdents
// returns 0: a short batch does not mean the end (the kernel also stops a
// batch for a signal). Errors are raw errnos, with what was listed so far.
func ReadDirNumbers(fd int, dents []byte, out []int) ([]int, error) {
	for {
		n, err := unix.Getdents(fd, dents)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
		for off := 0; off+19 < n; {
			reclen := int(*(*uint16)(unsafe.Pointer(&dents[off+16])))
			if reclen == 0 || off+reclen > n {
				break
			}
			if v, ok := Atoi(dents[off+19 : off+reclen]); ok {
				out = append(out, v)
			}
			off += reclen
		}
	}
}

// Atoi parses a decimal name ended by NUL or by the end of b; ok is false
// for anything that is not a plain non-negative number ("." and ".." are
// not).
func Atoi(b []byte) (int, bool) {
	v, digits := 0, 0
	for _, c := range b {
		if c == 0 {
			break
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
		digits++
	}
	return v, digits > 0
}
