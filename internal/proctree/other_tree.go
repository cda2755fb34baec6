//go:build !linux && !darwin && !windows

package proctree

import (
	"context"
	"time"
)

// Descendants is unsupported outside Linux: it relies on /proc.
func Descendants(root int, marker string) ([]Proc, error) { return nil, ErrUnsupported }

// Running is unsupported outside Linux: it relies on /proc. It reports
// true so callers do not claim an exit they cannot see.
func Running(pid int) bool { return true }

// Terminate is unsupported outside Linux: it relies on /proc and pidfds.
func Terminate(ctx context.Context, root int, marker string, grace time.Duration) (int, error) {
	return 0, ErrUnsupported
}

// IgnoresSIGTERM is unknown outside Linux: it relies on /proc.
func IgnoresSIGTERM(pid int) bool { return false }

// TerminateUnder is unsupported outside Linux: it relies on /proc and pidfds.
func TerminateUnder(ctx context.Context, parent, root int, marker string, grace time.Duration) (int, error) {
	return 0, ErrUnsupported
}

// Track is unsupported here.
func Track(root int) (*Tracker, error) { return nil, ErrUnsupported }

// Close does nothing: Track made no tracker.
func (t *Tracker) Close() {}

// TerminateTracked is unsupported here.
func TerminateTracked(ctx context.Context, tr *Tracker, root int, marker string, grace time.Duration) (int, error) {
	return 0, ErrUnsupported
}
