package mcpserver

import (
	"strconv"
	"sync/atomic"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/runner"
	"github.com/agentty/agentty/internal/session"
)

// newRunner makes a runner whose children start on mgr's spawner thread,
// are kept from the orphan reaper, and carry a marker under mgr's instance
// so the guard kills them if agentty dies.
func newRunner(mgr *session.Manager, remote RemoteHosts) *runner.Runner {
	var seq atomic.Int64
	r := &runner.Runner{
		Spawn: mgr.SpawnOwned,
		Marker: func() string {
			return proctree.EnvKey + "=" + mgr.Instance() + "/run" + strconv.FormatInt(seq.Add(1), 10)
		},
	}
	if s, ok := remote.(remoteStarter); ok {
		r.Remote = s.Start
	}
	return r
}

// remoteStarter is what run_command with host needs of RemoteHosts
// (sshbackend.Pool.Start): a program started on another host.
type remoteStarter interface {
	Start(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error)
}
