package mcpserver

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/sshtest"
)

func TestSSH_ConnectionSharedLostAndReconnected(t *testing.T) {
	e := newSSHEnv(t)
	proxy := sshtest.NewProxy(t, e.srv.Addr)
	e.trust(proxy.Addr)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(proxy.Addr)

	var ids []string
	for i := range 20 {
		r := c.start(map[string]any{"host": host, "argv": []string{"cat"}, "name": fmt.Sprintf("cat%d", i)})
		if r.State != "awaiting_input" {
			t.Fatalf("cat %d: state=%s detail=%q", i, r.State, r.StateDetail)
		}
		ids = append(ids, r.SessionID)
	}
	hs := c.hosts()
	if len(hs) != 1 || hs[0].State != "connected" || len(hs[0].Sessions) != 20 || hs[0].Host != host {
		t.Fatalf("list_hosts: %+v", hs)
	}
	var s SendResult
	c.call("send_input", map[string]any{"session_id": ids[7], "text": "hello", "enter": true}, &s)
	if s.Output != "hello\n" {
		t.Fatalf("cat reply %q", s.Output)
	}

	proxy.Cut()
	for _, id := range ids {
		var r ReadResult
		c.call("read_output", map[string]any{"session_id": id, "timeout_ms": 20000, "settle_ms": 0}, &r)
		if r.State != "lost" || r.Reason != "exited" || !strings.Contains(r.LostReason, "connection") {
			t.Fatalf("%s after cut: state=%s reason=%s lost=%q", id, r.State, r.Reason, r.LostReason)
		}
	}
	var info InfoResult
	c.call("get_session_info", map[string]any{"session_id": ids[0]}, &info)
	if info.State != "lost" || info.LostAt == nil || info.LostReason == "" || info.ExitCode != nil {
		t.Fatalf("info after cut: %+v", info.SessionInfo)
	}
	msg := c.toolError("send_input", map[string]any{"session_id": ids[0], "text": "x", "enter": true})
	if !strings.Contains(msg, "lost") {
		t.Fatalf("send to lost session: %q", msg)
	}
	if hs := c.hosts(); len(hs) != 1 || hs[0].State != "lost" || hs[0].LostReason == "" {
		t.Fatalf("list_hosts after cut: %+v", hs)
	}

	// The next start dials again.
	r := c.start(map[string]any{"host": host, "argv": []string{"cat"}})
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "again", "enter": true}, &s)
	if s.Output != "again\n" {
		t.Fatalf("after reconnect: %q", s.Output)
	}
	if hs := c.hosts(); len(hs) != 1 || hs[0].State != "connected" || len(hs[0].Sessions) != 1 {
		t.Fatalf("list_hosts after reconnect: %+v", hs)
	}
}

func TestSSH_StalledServerDetectedByKeepalive(t *testing.T) {
	e := newSSHEnv(t)
	proxy := sshtest.NewProxy(t, e.srv.Addr)
	e.trust(proxy.Addr)
	o := e.options()
	o.Keepalive, o.KeepaliveMax = 100*time.Millisecond, 3
	c := newSSHClient(t, o)
	r := c.start(map[string]any{"host": e.srv.Target(proxy.Addr), "argv": []string{"cat"}})
	proxy.Stall()
	var rr ReadResult
	c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 30000, "settle_ms": 0}, &rr)
	if rr.State != "lost" || !strings.Contains(rr.LostReason, "keepalive") {
		t.Fatalf("stalled: state=%s reason=%s lost=%q", rr.State, rr.Reason, rr.LostReason)
	}
}

func TestSSH_ProxyJump(t *testing.T) {
	e := newSSHEnv(t)
	cfg := fmt.Sprintf("Host jump\n  HostName 127.0.0.1\n  Port %d\n  User %s\n\nHost inner\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  ProxyJump jump\n",
		e.srv.Port, e.srv.User, e.srv.Port, e.srv.User)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newSSHClient(t, e.options())
	r := c.start(map[string]any{"host": "inner", "command": "echo via-$((40+2))", "mode": "pipe"})
	if r.Output != "via-42\n" || r.Host != e.srv.User+"@"+e.srv.Addr {
		t.Fatalf("through jump: %q host=%q", r.Output, r.Host)
	}
}

func TestSSH_LocalSSHClientPasswordFlow(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	r := c.start(map[string]any{"argv": []string{"ssh", "-F", "/dev/null", "-p", strconv.Itoa(e.srv.Port),
		"-o", "UserKnownHostsFile=" + e.knownHosts, "-o", "StrictHostKeyChecking=yes",
		"-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password",
		"-o", "IdentityAgent=none", e.srv.User + "@127.0.0.1", "PS1='remote$ ' exec bash --norc --noprofile -i"}})
	if r.State != "awaiting_password" || !strings.HasSuffix(r.Output, "password: ") {
		t.Fatalf("ssh: state=%s output=%q detail=%q", r.State, r.Output, r.StateDetail)
	}
	var s SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": e.srv.Password, "enter": true, "until": `remote\$ $`}, &s)
	if got := untilOutput(t, c.client, r.SessionID, s.Output, `remote\$ $`); strings.Contains(got, e.srv.Password) {
		t.Fatalf("after password: %q", got)
	}
	// Once logged in, the local ssh client always sits in poll() on its
	// terminal and the socket, so the kernel rightly reports it waiting for
	// input before the remote's reply has crossed the network; the reply is
	// read by until. (host= sessions ask the remote kernel instead.)
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "echo remote-$((6*7))", "enter": true}, &s)
	got := untilOutput(t, c.client, r.SessionID, s.Output, `remote-42\r?\n.*remote\$ $`)
	if !strings.Contains(got, "remote-42\n") {
		t.Fatalf("command: %q", got)
	}
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "exit 5", "enter": true, "timeout_ms": 0}, &s)
	var rr ReadResult
	deadline := time.Now().Add(10 * time.Second)
	for rr.State != "exited" {
		if time.Now().After(deadline) {
			t.Fatalf("ssh did not exit: %+v", rr)
		}
		c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 2000, "settle_ms": 0}, &rr)
	}
	if rr.ExitCode == nil || *rr.ExitCode != 5 {
		t.Fatalf("exit: code=%v output=%q", rr.ExitCode, rr.Output)
	}
}

// untilOutput reads until the accumulated output matches re, within 10 s.
func untilOutput(t *testing.T, c *client, id, have, re string) string {
	t.Helper()
	rx := regexp.MustCompile("(?s)" + re)
	deadline := time.Now().Add(10 * time.Second)
	for !rx.MatchString(have) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in %q", re, have)
		}
		var r ReadResult
		c.call("read_output", map[string]any{"session_id": id, "until": re, "timeout_ms": 2000, "settle_ms": 0}, &r)
		have += r.Output
	}
	return have
}
