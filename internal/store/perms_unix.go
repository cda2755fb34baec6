//go:build unix

package store

import (
	"fmt"
	"log/slog"
	"os"
	"syscall"
)

// makePrivate makes dir 0700 when its mode lets others in and this user
// owns it, and says so.
func makePrivate(dir string, fi os.FileInfo, log *slog.Logger) error {
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return notOurs(dir, fmt.Sprintf("is open to other users (mode %04o) and belongs to uid %d, not to this user (uid %d)", perm, uid, os.Geteuid()))
	}
	if err := os.Chmod(dir, dirMode); err != nil {
		return fmt.Errorf("store: make data dir %s private (mode %04o to 0700): %w", dir, perm, err)
	}
	log.Warn("data dir was open to other users; made it private", "dir", dir, "was", fmt.Sprintf("%04o", perm), "now", "0700")
	return nil
}

// ownerOf is fi's owner uid.
func ownerOf(fi os.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
