package store

import (
	"errors"
	"fmt"
)

// ErrNoPrivateDir is returned by Open where agentty cannot make the data
// directory private to its user yet (Windows); it matches
// errors.ErrUnsupported.
var ErrNoPrivateDir = fmt.Errorf("store: agentty cannot make a data directory private on Windows yet, and transcripts hold everything typed into sessions: run with -no-store: %w", errors.ErrUnsupported)
