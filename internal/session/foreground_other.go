//go:build !linux

package session

import "errors"

// Foreground is only known on Linux.
func (s *Session) Foreground() (Foreground, error) {
	return Foreground{}, errors.New("foreground process: only supported on Linux")
}
