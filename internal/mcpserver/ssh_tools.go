package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SSHParams select a remote host for a process tool. Secrets are never
// parameters: passwords and passphrases come from the server's
// configuration.
type SSHParams struct {
	Host             string `json:"host,omitempty" jsonschema:"run on this machine over SSH: user@host, user@host:port or an alias from ~/.ssh/config (default: locally). Passwords are never arguments: they come from agentty's configuration"`
	AcceptNewHostKey bool   `json:"accept_new_host_key,omitempty" jsonschema:"trust and record the host's key when it is not in known_hosts yet (trust on first use); a changed key is always refused"`
}

// HostLister reports SSH connections; the server core adapts the SSH
// backend's connection pool to it.
type HostLister interface {
	Hosts() []HostInfo
}

// HostInfo describes one SSH connection for list_hosts.
type HostInfo struct {
	Host        string     `json:"host" jsonschema:"user@host:port"`
	Alias       string     `json:"alias,omitempty" jsonschema:"the host argument it was opened with"`
	State       string     `json:"state" jsonschema:"connected or lost"`
	ConnectedAt time.Time  `json:"connected_at"`
	LostAt      *time.Time `json:"lost_at,omitempty"`
	LostReason  string     `json:"lost_reason,omitempty"`
	RemoteOS    string     `json:"remote_os,omitempty" jsonschema:"uname of the remote, once the input probe ran"`
	Probe       string     `json:"probe" jsonschema:"how awaiting input is decided on this host"`
	Sessions    []string   `json:"sessions" jsonschema:"ids of sessions running over this connection"`
}

// HostsResult is list_hosts's result.
type HostsResult struct {
	Hosts []HostInfo `json:"hosts"`
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
	add(srv, t.log, &mcp.Tool{Name: "list_hosts", Description: "List SSH connections (one per user@host:port, shared by all sessions on it): state connected or lost (with the reason), the sessions on each, and how awaiting input is decided there.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.listHosts)
}

func (t *tools) listHosts(context.Context, *mcp.CallToolRequest, struct{}) (HostsResult, error) {
	return HostsResult{Hosts: t.hosts.Hosts()}, nil
}
