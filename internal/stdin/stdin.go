// Package stdin gives the process's standard input (and output) as a file
// read (written) through the Go runtime's poller.
//
// A pipe or socket inherited as stdin is a blocking file in Go: a read
// parks its thread in the kernel with the thread's scheduler slot (P)
// held, and work the reader hands on just before its next read waits for
// the runtime's monitor to retake that slot, waking another thread (the
// MCP stdio transport did that on every request). A read through the
// poller parks only its goroutine, gives its slot to that work at once,
// and honours deadlines, so a reader can be stopped (the daemon relay).
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
