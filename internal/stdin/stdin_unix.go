//go:build unix

package stdin

import (
	"os"

	"golang.org/x/sys/unix"
)

// Pollable returns standard input read through the runtime's poller when
// it is a pipe or a socket (what MCP clients and the daemon relay
// connect), else os.Stdin: a terminal (O_NONBLOCK belongs to the open
// terminal, shared with the shell), a device or a file. O_NONBLOCK on the
// pipe is shared with descriptor 0, which nothing else in this process
// reads. Closing the file closes descriptor 0.
func Pollable() *os.File {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		return os.Stdin
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFIFO && t != unix.S_IFSOCK {
		return os.Stdin
	}
	if err := unix.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	// NewFile registers a non-blocking descriptor with the poller.
	return os.NewFile(0, "/dev/stdin")
}
