//go:build !linux && !darwin && !windows

package proctree

import (
	"fmt"
	"os"
)

// Guard is unavailable here.
type Guard struct{}

// PendingGuard is a guard that never starts here.
type PendingGuard struct{}

// BeginGuard is unsupported here.
func BeginGuard(sp *Spawner, exe string, args []string, instance string) *PendingGuard {
	return &PendingGuard{}
}

// DeferGuard is unsupported here.
func DeferGuard(sp *Spawner, exe string, args []string, instance string) *PendingGuard {
	return &PendingGuard{}
}

// Armed reports that the start has ended: there is none.
func (p *PendingGuard) Armed() bool { return true }

// Wait returns StartGuard's error.
func (p *PendingGuard) Wait() (*Guard, error) { return nil, ErrUnsupported }

// StartGuard is unsupported here.
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
