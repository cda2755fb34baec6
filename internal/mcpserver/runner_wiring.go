package mcpserver

import (
	"strconv"
	"sync/atomic"

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
	if remote != nil {
		r.Remote = remote.Start
	}
	return r
}
