package store

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// maxIov bounds the buffers of one writev (the kernel's UIO_MAXIOV).
const maxIov = 1024

// writeParts writes parts to f in order with as few system calls as it
// can (writev), so a record held as several memory blocks costs one write
// like a copied one did. It returns the bytes written.
func writeParts(f *os.File, parts [][]byte) (int64, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var total int64
	for len(parts) > 0 {
		var n int
		var werr error
		batch := parts[:min(len(parts), maxIov)]
		if err := rc.Write(func(fd uintptr) bool {
			n, werr = unix.Writev(int(fd), batch)
			return werr != unix.EAGAIN
		}); err != nil {
			return total, err
		}
		if n > 0 {
			total += int64(n)
		}
		if werr != nil && werr != unix.EINTR {
			return total, &os.PathError{Op: "writev", Path: f.Name(), Err: werr}
		}
		if n == 0 && werr == nil {
			return total, io.ErrShortWrite
		}
		// Drop what was written; a short write leaves part of one buffer.
		for n > 0 {
			if n < len(parts[0]) {
				parts[0] = parts[0][n:]
				break
			}
			n -= len(parts[0])
			parts = parts[1:]
		}
	}
	return total, nil
}
