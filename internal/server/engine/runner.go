// Package engine wires what the server core builds beside the session
// manager, so tests of the MCP layer and of front ends, which cannot import
// internal/server, build the same parts the same way.
package engine

import (
	"strconv"
	"sync/atomic"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/runner"
	"github.com/agentty/agentty/internal/session"
)

// RemoteHosts starts programs on other hosts: the SSH backend's pool.
type RemoteHosts interface {
	Start(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error)
}

// Runner makes a runner whose children start on mgr's spawner thread,
// are kept from the orphan reaper, and carry a marker under mgr's instance
// so the guard kills them if agentty dies. remote nil turns hosts off.
func Runner(mgr *session.Manager, remote RemoteHosts) *runner.Runner {
	var seq atomic.Int64
	r := &runner.Runner{
		Spawn: mgr.SpawnOwned,
		Marker: func() string {
			return proctree.EnvKey + "=" + mgr.Instance() + "/run" + strconv.FormatInt(seq.Add(1), 10)
		},
	}
	if remote != nil {
		r.Remote = remote.Start
	}
	return r
}
