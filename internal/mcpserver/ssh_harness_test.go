package mcpserver

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/sshbackend"
	"github.com/agentty/agentty/internal/sshtest"
)

// sshUser is this package's test account on the local sshd.
const sshUser = "agentty-mcpt"

// sshEnv is a real sshd and the files a pool needs to reach it.
type sshEnv struct {
	srv        *sshtest.Server
	knownHosts string
	config     string
}

// newSSHEnv starts sshd and trusts its key at the given addresses (its own
// when none).
func newSSHEnv(t testing.TB) *sshEnv {
	t.Helper()
	srv := sshtest.Start(t, sshUser)
	dir := t.TempDir()
	e := &sshEnv{srv: srv, knownHosts: filepath.Join(dir, "known_hosts"), config: filepath.Join(dir, "ssh_config")}
	e.trust(srv.Addr)
	if err := os.WriteFile(e.config, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// trust adds the server's key for addr to known_hosts.
func (e *sshEnv) trust(addr string) {
	f, err := os.OpenFile(e.knownHosts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if _, err := f.WriteString(e.srv.KnownHostsLine(addr) + "\n"); err != nil {
		panic(err)
	}
}

// options are pool options that log in with the configured password.
func (e *sshEnv) options() *sshbackend.Options {
	return &sshbackend.Options{ConfigFile: e.config, KnownHosts: e.knownHosts, AgentSocket: "none",
		Auth: map[string]sshbackend.HostAuth{"*": {Password: sshbackend.Secret{Value: e.srv.Password}}}}
}

// sshClient is an MCP client whose server can start remote sessions.
type sshClient struct {
	*client
	pool *sshbackend.Pool
}

func newSSHClient(t testing.TB, o *sshbackend.Options) *sshClient {
	t.Helper()
	pool := sshbackend.NewPool(o)
	mgr := session.NewManager(session.Config{Remote: pool.Start, KillGrace: time.Second})
	c := connect(t, mgr, New(mgr, withEngine(mgr, &Options{Hosts: poolHosts{pool}, Remote: pool})), "test", nil, nil, pool.Close)
	return &sshClient{client: c, pool: pool}
}

// poolHosts lists a pool's connections for list_hosts, as the server core does.
type poolHosts struct{ pool *sshbackend.Pool }

func (p poolHosts) Hosts() []HostInfo {
	hs := p.pool.Hosts()
	out := make([]HostInfo, 0, len(hs))
	for _, h := range hs {
		out = append(out, HostInfo(h))
	}
	return out
}

// hosts calls list_hosts.
func (c *sshClient) hosts() []HostInfo {
	c.t.Helper()
	var r HostsResult
	c.call("list_hosts", map[string]any{}, &r)
	return r.Hosts
}
