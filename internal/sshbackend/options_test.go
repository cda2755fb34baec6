package sshbackend_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentty/agentty/internal/sshbackend"
	"github.com/agentty/agentty/internal/sshtest"
)

// testOptions are pool options for srv: its host key known, an empty
// ssh_config, no agent, and the test user's password for every host.
func testOptions(t *testing.T, srv *sshtest.Server) *sshbackend.Options {
	t.Helper()
	dir := t.TempDir()
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(srv.KnownHostsLine(srv.Addr)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return &sshbackend.Options{ConfigFile: cfg, KnownHosts: known, AgentSocket: "none",
		Auth: map[string]sshbackend.HostAuth{"*": {Password: sshbackend.Secret{Value: srv.Password}}}}
}
