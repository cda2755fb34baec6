//go:build !linux && !windows

package proctree

import (
	"context"
	"fmt"
	"os"
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

// SetSubreaper is unsupported outside Linux.
func SetSubreaper() error { return ErrUnsupported }

// RunReaper only waits for ctx outside Linux, where there is no subreaper to
// adopt orphans.
func RunReaper(ctx context.Context, owned func(pid int) bool) { <-ctx.Done() }

// Guard is unavailable outside Linux.
type Guard struct{}

// PendingGuard is a guard that never starts outside Linux.
type PendingGuard struct{}

// BeginGuard is unsupported outside Linux.
func BeginGuard(sp *Spawner, exe string, args []string, instance string) *PendingGuard {
	return &PendingGuard{}
}

// DeferGuard is unsupported outside Linux.
func DeferGuard(sp *Spawner, exe string, args []string, instance string) *PendingGuard {
	return &PendingGuard{}
}

// Armed reports that the start has ended: there is none.
func (p *PendingGuard) Armed() bool { return true }

// Wait returns StartGuard's error.
func (p *PendingGuard) Wait() (*Guard, error) { return nil, ErrUnsupported }

// StartGuard is unsupported outside Linux.
func StartGuard(sp *Spawner, exe string, args []string, instance string) (*Guard, error) {
	return nil, ErrUnsupported
}

// PID returns 0: there is no guard process.
func (g *Guard) PID() int { return 0 }

// Done returns a closed channel: there is no guard process.
func (g *Guard) Done() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// Close does nothing: there is no guard process.
func (g *Guard) Close() error { return nil }

// RunGuard reports that the guard cannot run here.
func RunGuard() int {
	fmt.Fprintln(os.Stderr, ErrUnsupported)
	return 2
}

// IgnoresSIGTERM is unknown outside Linux: it relies on /proc.
func IgnoresSIGTERM(pid int) bool { return false }

// RunKeeper is unsupported outside Linux.
func RunKeeper(args []string) int {
	fmt.Fprintln(os.Stderr, ErrUnsupported)
	return 2
}

// TerminateUnder is unsupported outside Linux: it relies on /proc and pidfds.
func TerminateUnder(ctx context.Context, parent, root int, marker string, grace time.Duration) (int, error) {
	return 0, ErrUnsupported
}
