package backend

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrLocalUnsupported is why StartPTY and StartPipe fail on platforms other
// than Linux and Windows: local processes are started, watched and ended
// there only so far. It wraps errors.ErrUnsupported.
var ErrLocalUnsupported = fmt.Errorf("local sessions are not supported on %s yet: %w",
	runtime.GOOS, errors.ErrUnsupported)
