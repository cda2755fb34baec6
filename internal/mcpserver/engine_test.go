package mcpserver

import (
	"github.com/agentty/agentty/internal/server/engine"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
)

// withEngine fills in o's shell registry and runner over mgr the way the
// server core does (nil o: defaults otherwise).
func withEngine(mgr *session.Manager, o *Options) *Options {
	if o == nil {
		o = &Options{}
	}
	o.Shells = shell.NewRegistry(mgr)
	var start engine.RemoteHosts // run_command with host: the SSH pool's Start
	if s, ok := o.Remote.(engine.RemoteHosts); ok {
		start = s
	}
	o.Runner = engine.Runner(mgr, start)
	return o
}
