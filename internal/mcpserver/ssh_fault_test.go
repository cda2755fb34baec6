package mcpserver

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	gssh "github.com/gliderlabs/ssh"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/agentty/agentty/internal/sshbackend"
)

// fakeServer is an SSH server that misbehaves in ways OpenSSH cannot be
// made to: it reports a non-Linux system to the probe helper and drops a
// session's channel without an exit status.
func fakeServer(t *testing.T, configure ...func(*gssh.Server)) (addr string, o *sshbackend.Options) {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	srv := &gssh.Server{
		PasswordHandler: func(gssh.Context, string) bool { return true },
		Handler: func(s gssh.Session) {
			if strings.Contains(s.RawCommand(), "agentty-helper") {
				_, _ = io.WriteString(s, "agentty-helper Darwin arm64\n")
				return
			}
			_, _ = io.WriteString(s, "\x1eagentty-pid 4242\nhello\n")
			line, _ := bufio.NewReader(s).ReadString('\n')
			_, _ = io.WriteString(s, "got "+line)
			_ = s.Close() // no exit-status, no exit-signal
		},
	}
	for _, f := range configure {
		f(srv)
	}
	srv.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	dir := t.TempDir()
	known := filepath.Join(dir, "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(ln.Addr().String())}, signer.PublicKey())
	if err := os.WriteFile(known, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return ln.Addr().String(), &sshbackend.Options{ConfigFile: cfg, KnownHosts: known, AgentSocket: "none",
		Auth: map[string]sshbackend.HostAuth{"*": {Password: sshbackend.Secret{Value: "x"}}}}
}

func TestSSH_FaultsOpenSSHCannotShow(t *testing.T) {
	addr, o := fakeServer(t)
	c := newSSHClient(t, o)
	r := c.start(map[string]any{"host": "tester@" + addr, "command": "anything", "mode": "pipe", "settle_ms": 100})
	if r.Output != "hello\n" || r.Reason != "settled" || r.State != "running" {
		t.Fatalf("start: %q reason=%s state=%s", r.Output, r.Reason, r.State)
	}
	t.Run("non-Linux remote: waits fall back and say so", func(t *testing.T) {
		var info InfoResult
		c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
		if !strings.Contains(info.StateDetail, "Darwin") || !strings.Contains(info.StateDetail, "until, settle_ms and exit") {
			t.Fatalf("state_detail %q", info.StateDetail)
		}
		if hs := c.hosts(); len(hs) != 1 || !strings.HasPrefix(hs[0].Probe, "none") {
			t.Fatalf("list_hosts: %+v", hs)
		}
	})
	t.Run("channel closed without exit status is lost, not exit 0", func(t *testing.T) {
		var s SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "ping", "enter": true, "timeout_ms": 10000, "settle_ms": 0}, &s)
		if s.State != "exited" {
			var rr ReadResult
			c.call("read_output", map[string]any{"session_id": r.SessionID, "timeout_ms": 10000, "settle_ms": 0}, &rr)
			s.ReadResult = ReadResult{Output: s.Output + rr.Output, State: rr.State, ExitCode: rr.ExitCode, LostReason: rr.LostReason}
		}
		if s.Output != "got ping\n" || s.State != "lost" || s.ExitCode != nil || !strings.Contains(s.LostReason, "without an exit status") {
			t.Fatalf("output=%q state=%s code=%v lost=%q", s.Output, s.State, s.ExitCode, s.LostReason)
		}
	})
}

func TestSSH_KeyboardInteractivePassword(t *testing.T) {
	var asked atomic.Int32 // answers the server got
	addr, o := fakeServer(t, func(s *gssh.Server) {
		s.PasswordHandler = nil // only keyboard-interactive
		s.KeyboardInteractiveHandler = func(_ gssh.Context, ch ssh.KeyboardInteractiveChallenge) bool {
			answers, err := ch("tester", "", []string{"Password: "}, []bool{false})
			asked.Add(int32(len(answers)))
			return err == nil && len(answers) == 1 && answers[0] == "kbd-secret"
		}
	})
	o.Auth = map[string]sshbackend.HostAuth{"*": {Password: sshbackend.Secret{Value: "kbd-secret"}}}
	c := newSSHClient(t, o)
	r := c.start(map[string]any{"host": "tester@" + addr, "command": "anything", "mode": "pipe", "settle_ms": 100})
	if r.Output != "hello\n" || asked.Load() != 1 {
		t.Fatalf("start: %q, answers %d", r.Output, asked.Load())
	}
	o.Auth = map[string]sshbackend.HostAuth{"*": {Password: sshbackend.Secret{Value: "wrong"}}}
	msg := newSSHClient(t, o).toolError("start_process", map[string]any{"host": "tester@" + addr, "command": "x", "mode": "pipe"})
	if !strings.Contains(msg, "SSH authentication failed") || strings.Contains(msg, "wrong") {
		t.Fatalf("error %q", msg)
	}
}
