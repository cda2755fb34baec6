//go:build unix

package stdin

import (
	"os"

	"golang.org/x/sys/unix"
)

// PollableStdout returns standard output written through the runtime's
// poller when it is a pipe or a socket, else os.Stdout. A write to a
// client that stopped reading then parks only its goroutine and can be
// ended by a write deadline; a blocking file's write could not be ended
// at all. Nothing else may write descriptor 1 meanwhile. Left alone when descriptor 2 is the same file (2>&1): O_NONBLOCK
// belongs to the open file, and the log's writes would fail with EAGAIN.
func PollableStdout() *os.File {
	var out, errf unix.Stat_t
	if unix.Fstat(1, &out) != nil {
		return os.Stdout
	}
	if t := out.Mode & unix.S_IFMT; t != unix.S_IFIFO && t != unix.S_IFSOCK {
		return os.Stdout
	}
	if unix.Fstat(2, &errf) == nil && errf.Dev == out.Dev && errf.Ino == out.Ino {
		return os.Stdout
	}
	if unix.SetNonblock(1, true) != nil {
		return os.Stdout
	}
	// NewFile registers a non-blocking descriptor with the poller.
	return os.NewFile(1, "/dev/stdout")
}
