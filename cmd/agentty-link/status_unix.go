//go:build unix

package main

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// statusPipe is fd 3, where agentty serve gives its status pipe; anything
// else there (nothing, or what a runtime opened) is not one to write
// records into. -status-handle is Windows's.
func statusPipe(uint64) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(3, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil, errors.New("fd 3 is not open as a pipe: agentty serve starts this program with its status pipe there; it is not meant to be run by hand")
	}
	return os.NewFile(3, "status"), nil
}
