package daemon

import (
	"errors"
	"fmt"
)

// ErrUnsupported is returned by Listen, Claim and Spawn where agentty has
// no daemon yet (Windows); it matches errors.ErrUnsupported.
var ErrUnsupported = fmt.Errorf("the agentty daemon is not available on Windows yet: run `agentty serve -standalone`: %w", errors.ErrUnsupported)
