//go:build unix

package session

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// openFiles counts this process's descriptors and reads its limit, as
// text ("?" when unknown). At EMFILE listing /proc/self/fd itself may fail
// for want of a descriptor: then every one below the limit is in use.
func openFiles() (open, limit string) {
	open, limit = "?", "?"
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil {
		limit = strconv.FormatUint(rl.Cur, 10)
	}
	ents, err := os.ReadDir("/proc/self/fd")
	switch {
	case err == nil:
		open = strconv.Itoa(len(ents) - 1) // less the one reading the list
	case errors.Is(err, syscall.EMFILE):
		open = limit
	}
	return open, limit
}
