//go:build !linux

package store

import "os"

// maxIov is how many buffers one write takes on Linux (writeparts_linux.go).
const maxIov = 1024

// writeParts writes parts to f in order and returns the bytes written.
func writeParts(f *os.File, parts [][]byte) (int64, error) {
	var total int64
	for _, p := range parts {
		n, err := f.Write(p)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
