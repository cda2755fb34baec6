package backend

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// TooLongError is a start the kernel refused for the size of the program's
// arguments and environment (E2BIG): the program exists, and it would run
// with less.
type TooLongError struct {
	Path string
	// ArgBytes and EnvBytes are what the argument and environment strings
	// take as execve counts them: each string, its terminating NUL and a
	// pointer to it.
	ArgBytes, EnvBytes int
	// Longest is the length of the longest single string, and LongestIs
	// what it is ("argument 2", "environment variable DATA").
	Longest   int
	LongestIs string
	// Limit is the most the kernel takes for ArgBytes and EnvBytes
	// together, from the stack limit; StringLimit the longest one string
	// may be (MAX_ARG_STRLEN less the NUL).
	Limit, StringLimit int
	Err                error
}

func (e *TooLongError) Error() string {
	if e.Longest > e.StringLimit {
		return fmt.Sprintf("start %s: %v: %s is %d bytes, and the kernel takes at most %d bytes in one argument or environment string (MAX_ARG_STRLEN)",
			e.Path, e.Err, e.LongestIs, e.Longest, e.StringLimit)
	}
	return fmt.Sprintf("start %s: %v: the arguments take %d bytes and the environment %d (each string with its NUL and a pointer); the kernel takes at most %d bytes for both (ARG_MAX: a quarter of the stack limit, ulimit -s)",
		e.Path, e.Err, e.ArgBytes, e.EnvBytes, e.Limit)
}

func (e *TooLongError) Unwrap() error { return e.Err }

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
