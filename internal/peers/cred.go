package peers

import (
	"errors"
	"fmt"
)

// Cred is who connected to a unix socket, as the kernel recorded it at
// connect: the peer process's user and pid.
type Cred struct {
	UID int
	PID int
}

// ErrNoCred is returned by Of where the kernel tells agentty nothing about
// a unix socket's peer; it matches errors.ErrUnsupported.
var ErrNoCred = fmt.Errorf("this platform does not tell who connected to a unix socket: %w", errors.ErrUnsupported)
