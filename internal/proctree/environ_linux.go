//go:build linux

package proctree

import (
	"io"
	"os"
)

// envReader reads /proc/PID/environ into one reused buffer, because a marker
// scan reads every process's environment and per-file allocations dominate.
type envReader struct{ buf []byte }

// read returns pid's initial environment (NUL-separated). The slice is only
// valid until the next call. Unreadable or vanished processes yield nil.
func (r *envReader) read(pid int) []byte {
	f, err := os.Open(procPath(pid, "environ"))
	if err != nil {
		return nil
	}
	defer f.Close()
	if r.buf == nil {
		r.buf = make([]byte, 16<<10)
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := f.Read(r.buf[n:])
		n += m
		if err == io.EOF || (err == nil && m == 0) {
			break
		}
		if err != nil {
			return nil
		}
	}
	return r.buf[:n]
}
