package backend

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// tooLong returns err as a TooLongError when the kernel refused spec's
// exec with E2BIG, else err.
func tooLong(spec Spec, err error) error {
	if !errors.Is(err, syscall.E2BIG) {
		return err
	}
	const ptr = 8 // a pointer in the new program's argv or envp
	e := &TooLongError{Path: spec.Path, Err: syscall.E2BIG, StringLimit: 32*os.Getpagesize() - 1, Limit: argMax()}
	for i, a := range spec.Argv {
		e.ArgBytes += len(a) + 1 + ptr
		if len(a) > e.Longest {
			e.Longest, e.LongestIs = len(a), fmt.Sprintf("argument %d", i)
		}
	}
	for _, kv := range spec.Env {
		e.EnvBytes += len(kv) + 1 + ptr
		if len(kv) > e.Longest {
			name, _, _ := strings.Cut(kv, "=")
			e.Longest, e.LongestIs = len(kv), "environment variable "+name
		}
	}
	return e
}

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
