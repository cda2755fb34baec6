//go:build linux

package mcpserver

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/agentty/agentty/internal/sshbackend"
)

// startAgent runs ssh-agent on a private socket holding key.
func startAgent(t *testing.T, key ed25519.PrivateKey) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "agent.sock")
	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("ssh-agent: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	var conn net.Conn
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		if conn, err = net.Dial("unix", sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ssh-agent socket: %v", err)
		}
		// The agent creates its socket asynchronously; nothing else to wait on.
		time.Sleep(5 * time.Millisecond)
	}
	defer conn.Close()
	if err := agent.NewClient(conn).Add(agent.AddedKey{PrivateKey: key}); err != nil {
		t.Fatal(err)
	}
	return sock
}

func TestSSH_Authentication(t *testing.T) {
	e := newSSHEnv(t)
	host := e.srv.Target(e.srv.Addr)
	agentSock := startAgent(t, e.srv.ClientKey)
	aliasCfg := filepath.Join(t.TempDir(), "config")
	cfg := fmt.Sprintf("Host box\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s\n", e.srv.Port, e.srv.User, e.srv.ClientKeyFile)
	if err := os.WriteFile(aliasCfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENTTY_TEST_SSH_PW", e.srv.Password)
	const wrong = "Wr0ng-pa55word-xyz"
	tests := []struct {
		name    string
		host    string
		opts    func(o *sshbackend.Options)
		wantErr string
	}{
		{name: "password from configuration", host: host, opts: func(*sshbackend.Options) {}},
		{name: "password from a named environment variable", host: host, opts: func(o *sshbackend.Options) {
			o.Auth = map[string]sshbackend.HostAuth{host: {Password: sshbackend.Secret{Env: "AGENTTY_TEST_SSH_PW"}}}
		}},
		{name: "key from ssh-agent", host: host, opts: func(o *sshbackend.Options) { o.Auth, o.AgentSocket = nil, agentSock }},
		{name: "alias with IdentityFile from ssh config", host: "box", opts: func(o *sshbackend.Options) { o.Auth, o.ConfigFile = nil, aliasCfg }},
		{name: "wrong password", host: host, wantErr: "SSH authentication failed", opts: func(o *sshbackend.Options) {
			o.Auth = map[string]sshbackend.HostAuth{"*": {Password: sshbackend.Secret{Value: wrong}}}
		}},
		{name: "nothing to offer", host: host, wantErr: "no password configured", opts: func(o *sshbackend.Options) { o.Auth = nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := e.options()
			tc.opts(o)
			if tc.host == "box" {
				e.trust(e.srv.Addr) // known_hosts names the resolved address
			}
			c := newSSHClient(t, o)
			args := map[string]any{"host": tc.host, "argv": []string{"id", "-un"}, "mode": "pipe", "timeout_ms": 10000}
			if tc.wantErr != "" {
				msg := c.toolError("start_process", args)
				if !strings.Contains(msg, tc.wantErr) || strings.Contains(msg, wrong) || strings.Contains(msg, e.srv.Password) {
					t.Fatalf("error %q: want %q and no secret", msg, tc.wantErr)
				}
				return
			}
			r := c.start(args)
			if r.Output != e.srv.User+"\n" || r.State != "exited" || r.ExitCode == nil || *r.ExitCode != 0 {
				t.Fatalf("id -un: %q state=%s code=%v", r.Output, r.State, r.ExitCode)
			}
		})
	}
}

func TestSSH_HostKeys(t *testing.T) {
	e := newSSHEnv(t)
	host := e.srv.Target(e.srv.Addr)
	fp := ssh.FingerprintSHA256(e.srv.HostKey)
	args := func(accept bool) map[string]any {
		return map[string]any{"host": host, "argv": []string{"true"}, "mode": "pipe", "accept_new_host_key": accept}
	}

	t.Run("unknown key refused with its fingerprint, then trusted on request", func(t *testing.T) {
		o := e.options()
		o.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
		c := newSSHClient(t, o)
		msg := c.toolError("start_process", args(false))
		for _, want := range []string{"unknown SSH host key", fp, "accept_new_host_key: true"} {
			if !strings.Contains(msg, want) {
				t.Fatalf("error %q lacks %q", msg, want)
			}
		}
		r := c.start(args(true))
		if r.State != "exited" || *r.ExitCode != 0 {
			t.Fatalf("accepted: state=%s", r.State)
		}
		b, _ := os.ReadFile(o.KnownHosts)
		if strings.TrimSpace(string(b)) != e.srv.KnownHostsLine(e.srv.Addr) {
			t.Fatalf("known_hosts = %q", b)
		}
		// Recorded: a fresh pool connects without asking again.
		c2 := newSSHClient(t, o)
		c2.start(args(false))
	})

	t.Run("changed key refused even with accept_new_host_key", func(t *testing.T) {
		o := e.options()
		o.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
		pub, _, _ := ed25519.GenerateKey(rand.Reader)
		other, _ := ssh.NewPublicKey(pub)
		line := fmt.Sprintf("[127.0.0.1]:%d %s", e.srv.Port, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(other))))
		if err := os.WriteFile(o.KnownHosts, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := newSSHClient(t, o)
		for _, accept := range []bool{false, true} {
			msg := c.toolError("start_process", args(accept))
			if !strings.Contains(msg, "SSH HOST KEY CHANGED") || !strings.Contains(msg, fp) || !strings.Contains(msg, ssh.FingerprintSHA256(other)) {
				t.Fatalf("accept=%v: error %q", accept, msg)
			}
		}
		if b, _ := os.ReadFile(o.KnownHosts); string(b) != line+"\n" {
			t.Fatalf("known_hosts was modified: %q", b)
		}
	})
}
