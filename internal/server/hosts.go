package server

import (
	"context"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/nodebackend"
	"github.com/agentty/agentty/internal/sshbackend"
)

// hosts routes a host argument by its form: docker:// and k8s:// go to a
// node in that container or pod (nodebackend), anything else to SSH. The
// session engine, shells and runs see one StartRemote and one Exec.
type hosts struct {
	ssh   *sshbackend.Pool
	nodes *nodebackend.Pool
}

// Start is session.StartRemote and runner.StartRemote.
func (h hosts) Start(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error) {
	if nodebackend.IsNode(spec.Host) {
		return h.nodes.Start(spec, sink)
	}
	return h.ssh.Start(spec, sink)
}

// Exec is mcpserver.RemoteHosts: remote shells' file channel.
func (h hosts) Exec(ctx context.Context, host string, accept bool, script string, args []string, stdin []byte) ([]byte, error) {
	if nodebackend.IsNode(host) {
		return h.nodes.Exec(ctx, host, accept, script, args, stdin)
	}
	return h.ssh.Exec(ctx, host, accept, script, args, stdin)
}

// Hosts lists SSH connections, then nodes, in list_hosts's wire form.
func (h hosts) Hosts() []mcpserver.HostInfo {
	hs := h.ssh.Hosts()
	ns := h.nodes.Hosts()
	out := make([]mcpserver.HostInfo, 0, len(hs)+len(ns))
	for _, x := range hs {
		out = append(out, mcpserver.HostInfo(x))
	}
	for _, n := range ns {
		out = append(out, mcpserver.HostInfo{Host: n.Host, State: n.State, ConnectedAt: n.ConnectedAt, LostAt: n.LostAt,
			LostReason: n.LostReason, RemoteOS: n.Node, Probe: "node (the container's kernel)", Sessions: n.Sessions})
	}
	return out
}

// Close ends every node, then every SSH connection.
func (h hosts) Close() {
	h.nodes.Close()
	h.ssh.Close()
}
