//go:build linux

package session

import (
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/procfile"
)

// procReader reads small /proc files with raw open/read/close into a
// reused buffer. os.ReadFile costs about ten syscalls per file (the runtime
// poller tries, and fails, to register each /proc file; fcntl; fstat) and
// allocates; the policy's look at a session runs on every send_input, where
// those syscalls were a measurable part of the round trip.
type procReader struct {
	path  []byte // NUL-terminated path being opened
	buf   []byte // file contents, valid until the next read; its capacity is the buffer
	dents []byte // getdents64 scratch
}

var procReaders = sync.Pool{New: func() any {
	return &procReader{path: make([]byte, 0, 64), buf: make([]byte, 4096), dents: make([]byte, 4096)}
}}

// maxProcFile bounds one read: a command line can be as long as ARG_MAX
// allows, and nothing the session looks at is bigger.
const maxProcFile = 4 << 20

// setPath points the reader at /proc/PID[/task/TID]/LEAF; tid < 0 leaves
// out the task part.
func (r *procReader) setPath(pid, tid int, leaf string) {
	r.path = procfile.Path(r.path, pid, tid, leaf, -1)
}

func (r *procReader) open(flags int) (int, error) { return procfile.Open(r.path, flags) }

// read returns the whole file at the current path; the slice is valid
// until the next read.
func (r *procReader) read() ([]byte, error) { return r.readFile(false, false) }

// readSeq is read for a /proc file made by seq_file (stat, comm, children;
// not cmdline), spared the read that would return 0; multi marks a file of
// many records (children). See procfile.ReadAll.
func (r *procReader) readSeq(multi bool) ([]byte, error) { return r.readFile(true, multi) }

func (r *procReader) readFile(seq, multi bool) ([]byte, error) {
	fd, err := r.open(0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return procfile.ReadAll(fd, &r.buf, maxProcFile, seq, multi)
}

// readlink returns the target of the link at the current path.
func (r *procReader) readlink() (string, error) {
	for {
		b := r.buf[:cap(r.buf)]
		n, err := unix.Readlink(unsafe.String(&r.path[0], len(r.path)-1), b)
		if err != nil {
			return "", err
		}
		if n < len(b) || len(b) >= maxProcFile {
			return string(b[:n]), nil
		}
		r.buf = make([]byte, 2*len(b))
	}
}

// tids appends the numeric entries of the directory at the current path
// (the threads of /proc/PID/task) to out.
func (r *procReader) tids(out []int) []int {
	fd, err := r.open(unix.O_DIRECTORY)
	if err != nil {
		return out
	}
	defer unix.Close(fd)
	out, _ = procfile.ReadDirNumbers(fd, r.dents, out)
	return out
}
