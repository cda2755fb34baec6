package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HostLister reports SSH connections; the server core adapts the SSH
// backend's connection pool to it.
type HostLister interface {
	Hosts() []HostInfo
}

// Text implements texter.
func (r HostsResult) Text() string {
	if len(r.Hosts) == 0 {
		return "no SSH connections (start_process with host opens one)"
	}
	var b strings.Builder
	for _, h := range r.Hosts {
		fmt.Fprintf(&b, "%s %s sessions=[%s]", h.Host, h.State, strings.Join(h.Sessions, " "))
		if h.LostReason != "" {
			fmt.Fprintf(&b, " reason=%q", h.LostReason)
		}
		if h.RemoteOS != "" {
			fmt.Fprintf(&b, " os=%q", h.RemoteOS)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (t *tools) registerSSH(srv *mcp.Server) {
	if t.hosts == nil {
		return
	}
	add(srv, t.log, &mcp.Tool{Name: "list_hosts", Description: "List SSH connections and containers (docker://, k8s://) in use, connected or lost, with their sessions.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.listHosts)
}

func (t *tools) listHosts(context.Context, *mcp.CallToolRequest, struct{}) (HostsResult, error) {
	return HostsResult{Hosts: t.hosts.Hosts()}, nil
}
