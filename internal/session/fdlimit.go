package session

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// startError words a failure to start path. Running out of file
// descriptors is said as what it is, with the counts: the program exists,
// and a retry works once descriptors are freed. So is a command line too
// long for the kernel: the program exists, and runs with less.
func startError(path string, err error) error {
	if tl := (*TooLongError)(nil); errors.As(err, &tl) {
		return err
	}
	if !errors.Is(err, syscall.EMFILE) && !errors.Is(err, syscall.ENFILE) {
		return fmt.Errorf("%w: start %s: %v", ErrCommandNotFound, path, err)
	}
	open, limit := openFiles()
	return &TooManyFilesError{Open: open, Limit: limit, Path: path, Err: err}
}

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
