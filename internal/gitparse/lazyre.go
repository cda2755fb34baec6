package gitparse

import (
	"regexp"
	"sync"
)

// lazyRE compiles expr on first use: compiling this package's expressions
// at init took a third of a millisecond of every agentty start, most of
// which never parse git output.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
