//go:build !linux

package proctree

import (
	"context"
	"fmt"
	"os"
)

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

// RunKeeper is unsupported outside Linux.
func RunKeeper(args []string) int {
	fmt.Fprintln(os.Stderr, ErrUnsupported)
	return 2
}
