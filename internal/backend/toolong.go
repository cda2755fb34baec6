package backend

import "fmt"

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
