package session

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/agentty/agentty/internal/backend"
)

// startError words a failure to start path. Running out of file
// descriptors is said as what it is, with the counts: the program exists,
// and a retry works once descriptors are freed. So is a command line too
// long for the kernel: the program exists, and runs with less.
func startError(path string, err error) error {
	if tl := (*TooLongError)(nil); errors.As(err, &tl) || errors.Is(err, backend.ErrLocalUnsupported) {
		return err
	}
	if !errors.Is(err, syscall.EMFILE) && !errors.Is(err, syscall.ENFILE) {
		return fmt.Errorf("%w: start %s: %v", ErrCommandNotFound, path, err)
	}
	open, limit := openFiles()
	return &TooManyFilesError{Open: open, Limit: limit, Path: path, Err: err}
}
