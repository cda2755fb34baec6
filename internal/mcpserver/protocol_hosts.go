package mcpserver

// Wire types of list_hosts and the host parameter: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

import "time"

// SSHParams select a remote host for a process tool. Secrets are never
// parameters: passwords and passphrases come from the server's
// configuration.
type SSHParams struct {
	Host             string `json:"host,omitempty" jsonschema:"run over SSH (user@host[:port], an ssh_config alias) or in a container (docker://CONTAINER, k8s://NAMESPACE/POD[/CONTAINER])"`
	AcceptNewHostKey bool   `json:"accept_new_host_key,omitempty" jsonschema:"trust an unknown host key (a changed one is refused)"`
}

// HostInfo describes one SSH connection or container node for list_hosts.
type HostInfo struct {
	Host        string     `json:"host" jsonschema:"user@host:port, docker://CONTAINER or k8s://NAMESPACE/POD[/CONTAINER]"`
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
