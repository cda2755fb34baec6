package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/sshtest"
)

// TestServe_SSHFlags runs the real binary with the SSH flags: the password
// comes from the environment variable the flag names, never shows in the
// server's log, and shutting the server down leaves nothing on the remote.
func TestServe_SSHFlags(t *testing.T) {
	srv := sshtest.Start(t, "agentty-e2e")
	dir := t.TempDir()
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(srv.KnownHostsLine(srv.Addr)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "ssh_config")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AGENTTY_E2E_SSH_PW", srv.Password)
	t.Setenv("SSH_AUTH_SOCK", "")
	s := startServer(t, "-log-level", "debug", "-ssh-config", cfg, "-ssh-known-hosts", known,
		"-ssh-password-env", "*=AGENTTY_E2E_SSH_PW")
	host := srv.Target(srv.Addr)

	var r readResult
	s.call("start_process", map[string]any{"host": host, "argv": []string{"id", "-un"}, "mode": "pipe"}, &r)
	if r.Output != srv.User+"\n" || r.State != "exited" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("id -un: %+v", r)
	}
	s.call("start_process", map[string]any{"host": host, "command": "echo up; exec sleep 73519", "mode": "pipe", "until": "up"}, &r)
	if r.Reason != "matched" {
		t.Fatalf("sleep: %+v", r)
	}
	if st := s.close(); st.ExitCode() != 0 {
		t.Fatalf("server exit %v", st)
	}
	for pid, cl := range srv.Processes() {
		if strings.Contains(cl, "73519") {
			t.Fatalf("remote process %d %q survived the server's shutdown", pid, cl)
		}
	}
	if log := readFile(t, s.stderr); strings.Contains(log, srv.Password) {
		t.Fatal("the password appears in the server log")
	} else if !strings.Contains(log, "ssh connected") {
		t.Fatalf("log lacks the connection: %s", log)
	}
}
