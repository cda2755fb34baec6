//go:build linux || darwin

package backend

import (
	"errors"
	"fmt"
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
	e := &TooLongError{Path: spec.Path, Err: syscall.E2BIG, StringLimit: stringLimit(), Limit: argMax()}
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
