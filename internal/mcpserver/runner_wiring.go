package mcpserver

import (
	"github.com/agentty/agentty/internal/runner"
	"github.com/agentty/agentty/internal/session"
)

// newRunner makes a runner whose children start on mgr's spawner thread,
// are kept from the orphan reaper, and carry a marker under mgr's instance
// so the guard kills them if agentty dies. run_command with host needs
// remote to start programs (sshbackend.Pool.Start); without it remote runs
// are off.
func newRunner(mgr *session.Manager, remote RemoteHosts) *runner.Runner {
	if s, ok := remote.(runner.Starter); ok {
		return runner.New(mgr, s.Start)
	}
	return runner.New(mgr, nil)
}
