//go:build linux || darwin

package proctree

import (
	"fmt"
	"strings"
)

// protected lists pids and process groups that must never be signalled:
// 0, -1 semantics and init, agentty itself, its ancestors and their groups.
// Signalling any of them would take down agentty or the user's shell rather
// than one session.
type protected struct {
	pids, pgids map[int]bool
}

// groupOK reports whether signalling process group pgid is allowed.
func (p protected) groupOK(pgid int) bool {
	return pgid > 1 && !p.pgids[pgid] && !p.pids[pgid]
}

func checkRoot(root int, prot protected) error {
	if root < 0 || (root > 0 && prot.pids[root]) {
		return fmt.Errorf("%w: %d", ErrBadRoot, root)
	}
	return nil
}

// markerEntry turns a marker into the exact environment entry to match.
func markerEntry(marker string) string {
	if strings.Contains(marker, "=") {
		return marker
	}
	return EnvKey + "=" + marker
}
