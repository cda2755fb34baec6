package mcpserver

import (
	"github.com/agentty/agentty/internal/runner"
	"github.com/agentty/agentty/internal/session"
)

// newRunner makes a runner whose children start on mgr's spawner thread,
// are kept from the orphan reaper, and carry a marker under mgr's instance
// so the guard kills them if agentty dies.
func newRunner(mgr *session.Manager, remote RemoteHosts) *runner.Runner {
	if remote == nil {
		return runner.New(mgr, nil)
	}
	return runner.New(mgr, remote.Start)
}
