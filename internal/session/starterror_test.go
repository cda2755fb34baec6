package session

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"testing"

	"github.com/agentty/agentty/internal/backend"
)

// A platform without local sessions says so; it is never "command not
// found", which would send the caller hunting for a program that exists.
func TestStartError_Unsupported(t *testing.T) {
	for _, tc := range []struct {
		name        string
		err         error
		notFound    bool
		unsupported bool
		msg         string
	}{
		{name: "no local sessions", err: fmt.Errorf("start /bin/sh: %w", backend.ErrLocalUnsupported), unsupported: true,
			msg: "start /bin/sh: local sessions are not supported on " + runtime.GOOS + " yet: unsupported operation"},
		{name: "missing program", err: fmt.Errorf("fork/exec /bin/sh: %w", syscall.ENOENT), notFound: true,
			msg: "command not found: start /bin/sh: fork/exec /bin/sh: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := startError("/bin/sh", tc.err)
			if errors.Is(err, ErrCommandNotFound) != tc.notFound || errors.Is(err, errors.ErrUnsupported) != tc.unsupported {
				t.Errorf("startError = %v: command not found %v, unsupported %v; want %v, %v",
					err, errors.Is(err, ErrCommandNotFound), errors.Is(err, errors.ErrUnsupported), tc.notFound, tc.unsupported)
			}
			if err.Error() != tc.msg {
				t.Errorf("message %q, want %q", err.Error(), tc.msg)
			}
		})
	}
}
