//go:build linux

package ports

import "golang.org/x/sys/unix"

// readlink reads a link into buf without allocating, retrying EINTR.
func readlink(path string, buf []byte) (int, error) {
	for {
		n, err := unix.Readlink(path, buf)
		if err != unix.EINTR {
			return n, err
		}
	}
}
