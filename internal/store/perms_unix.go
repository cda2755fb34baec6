//go:build unix

package store

import (
	"os"
	"syscall"
)

// modesPrivate: file modes keep other users out here.
const modesPrivate = true

// ownerOf is fi's owner uid.
func ownerOf(fi os.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
