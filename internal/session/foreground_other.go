//go:build !linux && !darwin

package session

import "errors"

// Foreground is only known on Linux and macOS.
func (s *Session) Foreground() (Foreground, error) {
	return Foreground{}, errors.New("foreground process: only supported on Linux and macOS")
}
