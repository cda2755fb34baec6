// Package sshtest runs a real OpenSSH server on 127.0.0.1 for tests: a
// temporary configuration, host key and authorized_keys per run, and a
// local test user with a password. It needs root (to create the user and
// run sshd) and Debian's openssh-server; without either, tests skip with
// the reason (scripts/test installs openssh-server when run as root).
package sshtest

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHD is where Debian installs the server.
const SSHD = "/usr/sbin/sshd"

// SSHDEnv names another sshd (an absolute path, as sshd requires): a
// system that keeps it elsewhere, or a path that does not exist to check
// that the SSH tests skip without it.
const SSHDEnv = "AGENTTY_TEST_SSHD"

func sshdPath() string {
	if p := os.Getenv(SSHDEnv); p != "" {
		return p
	}
	return SSHD
}

// Server is one running sshd.
type Server struct {
	Addr     string // 127.0.0.1:port
	Port     int
	User     string
	Password string
	UID      int
	Dir      string        // temporary directory with every file below
	HostKey  ssh.PublicKey // the server's ed25519 host key
	// ClientKey is a key authorized for User; ClientKeyFile holds it
	// (unencrypted, OpenSSH format).
	ClientKey     ed25519.PrivateKey
	ClientKeyFile string

	cmd  *exec.Cmd
	logs *bytes.Buffer
}

var (
	userMu    sync.Mutex
	passwords = map[string]string{}   // guarded by userMu; one password per user per test binary
	locks     = map[string]*os.File{} // guarded by userMu; held until the test binary exits
)

// Require skips, saying why, when not root or when sshd is missing.
// scripts/test (and so CI, as root) installs openssh-server first.
func Require(t testing.TB) {
	t.Helper()
	if !supported {
		t.Skip("sshtest runs OpenSSH's sshd and useradd, which this platform does not have")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates a local test user and runs sshd")
	}
	if _, err := os.Stat(sshdPath()); err != nil {
		t.Skipf("sshd missing: %v (as root, scripts/test installs openssh-server)", err)
	}
}

// ensureUser creates the local user name once and sets a fresh password
// once per test binary; concurrent test packages use different names.
func ensureUser(t testing.TB, name string) (string, int) {
	t.Helper()
	userMu.Lock()
	defer userMu.Unlock()
	if locks[name] == nil {
		// Two test binaries using the same account (the same package run
		// twice at once) would reset each other's password: the second
		// waits for the first. The kernel drops the lock when the binary exits.
		f, err := os.OpenFile(filepath.Join(os.TempDir(), "agentty-sshtest-"+name+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if err := lockWait(f); err != nil {
			t.Fatalf("lock test account %s: %v", name, err)
		}
		locks[name] = f
	}
	if _, err := user.Lookup(name); err != nil {
		if out, err := exec.Command("useradd", "-m", "-s", "/bin/bash", name).CombinedOutput(); err != nil {
			if _, lerr := user.Lookup(name); lerr != nil { // another binary may have won the race
				t.Fatalf("useradd %s: %v: %s", name, err, out)
			}
		}
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	pw, ok := passwords[name]
	if !ok {
		pw = "pw-" + randHex(8)
		cmd := exec.Command("chpasswd")
		cmd.Stdin = strings.NewReader(name + ":" + pw + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("chpasswd: %v: %s", err, out)
		}
		passwords[name] = pw
	}
	return pw, uid
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Start runs sshd for user (created if needed) until the test ends.
func Start(t testing.TB, userName string) *Server {
	t.Helper()
	Require(t)
	pw, uid := ensureUser(t, userName)
	dir := t.TempDir()
	s := &Server{User: userName, Password: pw, UID: uid, Dir: dir, logs: &bytes.Buffer{}}

	hostPub, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	writeKey(t, filepath.Join(dir, "host_ed25519"), hostPriv)
	var err error
	if s.HostKey, err = ssh.NewPublicKey(hostPub); err != nil {
		t.Fatal(err)
	}
	clientPub, clientPriv, _ := ed25519.GenerateKey(rand.Reader)
	s.ClientKey = clientPriv
	s.ClientKeyFile = filepath.Join(dir, "id_ed25519")
	writeKey(t, s.ClientKeyFile, clientPriv)
	cpub, _ := ssh.NewPublicKey(clientPub)
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(cpub), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	// The user's sshd child reads authorized_keys here.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	for attempt := 0; ; attempt++ {
		s.Port = freePort(t)
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
		cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile none
AuthorizedKeysFile %s
StrictModes no
UsePAM no
PasswordAuthentication yes
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin no
AllowUsers %s
MaxSessions 100
MaxStartups 100
PrintMotd no
PrintLastLog no
LogLevel VERBOSE
`, s.Port, filepath.Join(dir, "host_ed25519"), filepath.Join(dir, "authorized_keys"), userName)
		cfgFile := filepath.Join(dir, "sshd_config")
		if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		s.logs.Reset()
		s.cmd = exec.Command(sshdPath(), "-D", "-e", "-f", cfgFile)
		s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
		s.cmd.SysProcAttr = sshdAttr()
		if err := s.cmd.Start(); err != nil {
			t.Fatalf("start sshd: %v", err)
		}
		exited := make(chan struct{})
		go func() {
			_ = s.cmd.Wait()
			close(exited)
		}()
		if s.ready(exited) {
			t.Cleanup(func() {
				_ = s.cmd.Process.Signal(syscall.SIGTERM)
				<-exited
				if t.Failed() {
					t.Logf("sshd log:\n%s", s.logs.String())
				}
			})
			return s
		}
		_ = s.cmd.Process.Kill()
		<-exited
		if attempt == 3 {
			t.Fatalf("sshd did not start:\n%s", s.logs.String())
		}
	}
}

// ready waits until sshd answers with its banner, or exits (port taken).
func (s *Server) ready(exited <-chan struct{}) bool {
	deadline := time.Now().Add(20 * time.Second)
	delay := 5 * time.Millisecond
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-2.0-") {
				return true
			}
		}
		// sshd binds its port asynchronously; nothing to wait on but the port.
		t := time.NewTimer(delay)
		select {
		case <-exited:
			t.Stop()
			return false
		case <-t.C:
		}
		delay = min(delay*2, 200*time.Millisecond)
	}
	return false
}

func writeKey(t testing.TB, file string, k ed25519.PrivateKey) {
	t.Helper()
	blk, err := ssh.MarshalPrivateKey(k, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// KnownHostsLine is the known_hosts line trusting this server at addr
// (its own address, or a proxy's).
func (s *Server) KnownHostsLine(addr string) string {
	return knownhosts.Line([]string{knownhosts.Normalize(addr)}, s.HostKey)
}

// Target is user@127.0.0.1:port for addr.
func (s *Server) Target(addr string) string { return s.User + "@" + addr }

// Processes lists the command lines of the test user's live processes,
// read from /proc on the server side (this machine).
func (s *Server) Processes() map[int]string {
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if uid, ok := ownerUID("/proc/" + e.Name()); !ok || uid != s.UID {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out[pid] = strings.TrimSpace(string(bytes.ReplaceAll(cl, []byte{0}, []byte{' '})))
	}
	return out
}
