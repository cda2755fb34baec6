//go:build unix

package sshtest

import (
	"os"
	"syscall"
)

// supported: sshd and useradd can run here.
const supported = true

// lockWait takes f's exclusive flock, waiting for another holder.
func lockWait(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

// ownerUID is the uid that owns path.
func ownerUID(path string) (int, bool) {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return 0, false
	}
	return int(st.Uid), true
}
