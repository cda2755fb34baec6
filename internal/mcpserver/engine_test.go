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
	o.Runner = engine.Runner(mgr, o.Remote)
	return o
}
