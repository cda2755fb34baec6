//go:build !linux && !darwin && !windows

package backend

import "fmt"

// StartPipe reports ErrLocalUnsupported.
func StartPipe(spec Spec, _ func(func()), _ Sink) (Process, error) {
	return nil, fmt.Errorf("start %s: %w", spec.Path, ErrLocalUnsupported)
}

// StartPTY reports ErrLocalUnsupported.
func StartPTY(spec Spec, _ func(func()), _ Sink) (Process, error) {
	return nil, fmt.Errorf("start %s: %w", spec.Path, ErrLocalUnsupported)
}
