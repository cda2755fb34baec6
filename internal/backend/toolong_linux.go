package backend

import (
	"os"
	"syscall"
)

// stringLimit is MAX_ARG_STRLEN: the longest one argument or environment
// entry may be.
func stringLimit() int { return 32*os.Getpagesize() - 1 }

// argMax is the kernel's bound on arguments and environment together
// (fs/exec.c): a quarter of the stack limit, at most three quarters of
// the default 8 MiB stack, at least 32 pages.
func argMax() int {
	var rl syscall.Rlimit
	limit := 6 << 20
	if syscall.Getrlimit(syscall.RLIMIT_STACK, &rl) == nil && rl.Cur/4 < uint64(limit) {
		limit = int(rl.Cur / 4)
	}
	return max(limit, 32*os.Getpagesize())
}
