package stdio

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// stdin is standard input for the read loop. A pipe or a socket (what MCP
// clients connect) is read through the runtime's poller on a non-blocking
// duplicate: a blocking read parks its thread in the kernel with the
// thread's scheduler slot held, and each request the loop hands on then had
// to be taken over by another thread (the runtime's monitor retakes the
// slot, waking threads and itself every 20 µs while requests flow). Parked
// in the poller, the loop's goroutine gives its slot straight to the
// request. Anything else (a terminal, a file) is read as it is.
func stdin() io.ReadCloser {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		return os.Stdin
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFIFO && t != unix.S_IFSOCK {
		return os.Stdin
	}
	fd, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return os.Stdin
	}
	// O_NONBLOCK belongs to the open pipe, shared with fd 0: nothing else
	// in this process reads it.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return os.Stdin
	}
	return &polledStdin{File: os.NewFile(uintptr(fd), "/dev/stdin")}
}

// polledStdin closes standard input with its duplicate, as closing
// os.Stdin did before.
type polledStdin struct{ *os.File }

func (p *polledStdin) Close() error {
	err := p.File.Close()
	os.Stdin.Close()
	return err
}
