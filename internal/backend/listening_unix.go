//go:build linux || darwin

package backend

import (
	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/proctree"
)

// Listening lists the sockets the root's process tree listens on. The tree
// is walked from the root alone (no marker scan, which reads every process's
// environment): waits ask this every few tens of milliseconds, and a
// listener that left the tree while the root lives is rare. On Linux the
// scanner reads the tree's descriptors again only when the namespace's
// listening sockets or the tree changed; on macOS it asks libproc for each
// owner's sockets (internal/ports, scan_darwin.go).
func (t *localTree) Listening() ([]ports.Socket, error) {
	procs, err := proctree.Descendants(t.pid, "")
	if err != nil {
		return nil, err
	}
	owners := make([]ports.Owner, len(procs))
	for i, p := range procs {
		owners[i] = ports.Owner{PID: p.PID, Command: p.Comm}
	}
	return t.ports.Scan(owners)
}
