//go:build !linux && !windows

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

// RunKeeper is unsupported outside Linux.
func RunKeeper(args []string) int {
	fmt.Fprintln(os.Stderr, ErrUnsupported)
	return 2
}
