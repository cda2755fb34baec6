//go:build !linux && !darwin

package ttymode

import "os"

// Read reports ErrUnsupported: this platform has no termios.
func Read(*os.File) (Modes, error) { return Modes{}, ErrUnsupported }
