package askpass

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrUnsupported is returned by Listen where agentty cannot tell which
// session a process belongs to (Windows for now); it
// matches errors.ErrUnsupported.
var ErrUnsupported = fmt.Errorf("askpass is not available on %s yet: agentty cannot tell which session an asking process belongs to here, so sessions get no SUDO_ASKPASS: %w", runtime.GOOS, errors.ErrUnsupported)
