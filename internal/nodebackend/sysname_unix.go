//go:build unix

package nodebackend

import "golang.org/x/sys/unix"

// sysname is the kernel's name (uname -s).
func sysname() string {
	var uts unix.Utsname
	_ = unix.Uname(&uts)
	return unix.ByteSliceToString(uts.Sysname[:])
}
