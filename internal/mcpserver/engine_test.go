package mcpserver

import (
	"github.com/agentty/agentty/internal/runner"
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
	var start runner.StartRemote // run_command with host: the SSH pool's Start
	if s, ok := o.Remote.(runner.Starter); ok {
		start = s.Start
	}
	o.Runner = runner.New(mgr, start)
	return o
}
