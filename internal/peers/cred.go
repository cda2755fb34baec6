package peers

import (
	"errors"
	"fmt"

	"github.com/agentty/agentty/internal/winacl"
)

// Cred is who connected to a unix socket, as the kernel recorded it at
// connect: the peer process's user and pid. Windows names users by SID
// (UID is then -1, as os.Getuid says there).
type Cred struct {
	UID int
	PID int
	SID string
}

// SameUser reports whether c and o are the same user: by SID where either
// has one (Windows), else by uid.
func (c Cred) SameUser(o Cred) bool {
	if c.SID != "" || o.SID != "" {
		return winacl.SameSID(c.SID, o.SID)
	}
	return c.UID == o.UID
}

// ErrNoCred is returned by Of where the kernel tells agentty nothing about
// a unix socket's peer; it matches errors.ErrUnsupported.
var ErrNoCred = fmt.Errorf("this platform does not tell who connected to a unix socket: %w", errors.ErrUnsupported)
