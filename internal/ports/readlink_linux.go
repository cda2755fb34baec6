//go:build linux

package ports

import "golang.org/x/sys/unix"

// readlinkat reads the link name in dir into buf, retrying EINTR; relative
// to the open directory, the kernel resolves no path prefix per link.
func readlinkat(dir int, name string, buf []byte) (int, error) {
	for {
		n, err := unix.Readlinkat(dir, name, buf)
		if err != unix.EINTR {
			return n, err
		}
	}
}
