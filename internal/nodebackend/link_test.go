//go:build unix

package nodebackend

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/outlog"
)

// fakeLinkMain makes this test binary a fake agentty-link when linkEnv is set.
func fakeLinkMain() {
	if mode := os.Getenv(linkEnv); mode != "" {
		os.Exit(fakeLink(mode))
	}
}

// linkEnv makes the test binary a fake agentty-link (see TestMain) in the
// mode it names: it speaks the status records as the real one does, with
// a local node behind it, so the server's side of the link is tested
// without Docker. Its pid goes to the file linkPIDEnv names.
const (
	linkEnv    = "AGENTTY_TEST_LINK"
	linkPIDEnv = "AGENTTY_TEST_LINK_PID"
)

// fakeLink is the fake link's main. Modes: ready (a node until stdin
// ends, or until SIGUSR1 ends it as a stopped container), error, proto (a
// link of another protocol), crash (no record at all).
func fakeLink(mode string) int {
	if f := os.Getenv(linkPIDEnv); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	status := json.NewEncoder(os.NewFile(3, "status"))
	switch mode {
	case "error":
		_ = status.Encode(LinkStatus{Proto: LinkProto, Error: `no container "web": start it first`})
		return 1
	case "proto":
		_ = status.Encode(LinkStatus{Proto: LinkProto + 1, Ready: true})
		_, _ = os.Stdin.Read(make([]byte, 1))
		return 0
	case "crash":
		os.Stderr.WriteString("panic: the link broke")
		return 3
	}
	_ = status.Encode(LinkStatus{Proto: LinkProto, Ready: true, Exe: strings.Join(os.Args[1:], " "), Copied: 42})
	stopped := make(chan os.Signal, 1)
	signal.Notify(stopped, syscall.SIGUSR1)
	served := make(chan error, 1)
	go func() { served <- Serve(os.Stdin, os.Stdout, "test") }()
	select {
	case <-served:
		_ = status.Encode(LinkStatus{})
	case <-stopped:
		os.Stdout.Close()
		_ = status.Encode(LinkStatus{Why: `container "web" stopped (exited, exit code 137)`, Stderr: "node: killed"})
	}
	return 0
}

// linkPool is a pool whose link is this test binary in mode.
func linkPool(t *testing.T, mode string) (*Pool, string) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv(linkEnv, mode)
	t.Setenv(linkPIDEnv, pidFile)
	p := NewPool(&Options{Version: "test", Binary: "/bin/agentty-static", Link: os.Args[0]})
	t.Cleanup(p.Close)
	return p, pidFile
}

// Through the link: the node works, the link is given the version, the
// binary and the target, and Close ends it.
func TestLink_NodeThroughLink(t *testing.T) {
	p, pidFile := linkPool(t, "ready")
	out := newCollector()
	pr, err := p.Start(backend.RemoteSpec{Host: "docker://web", Argv: []string{"sh", "-c", "echo via-link; exit 5"}, MergeStderr: true}, out.sink)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := pr.Wait()
	if err != nil || ex.Code != 5 || ex.Lost != "" {
		t.Fatalf("exit %+v %v", ex, err)
	}
	<-pr.Drained()
	pr.Close()
	if got := out.String(); got != "via-link\n" {
		t.Fatalf("output %q", got)
	}
	pid := readPID(t, pidFile)
	p.Close()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("link %d still there after Close: %v", pid, err)
	}
	if h := p.Hosts(); len(h) != 1 || h[0].Host != "docker://web" {
		t.Fatalf("hosts %+v", h)
	}
}

// The link's arguments: what it needs to reach the target and copy in.
func TestLink_Arguments(t *testing.T) {
	t.Setenv(linkEnv, "ready")
	s, err := dialLink(t.Context(), Target{Scheme: SchemeK8s, Namespace: "ns", Pod: "p", Container: "c"},
		&Options{Version: "9.9", Binary: "/opt/agentty", Link: os.Args[0], Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "-version 9.9 -binary /opt/agentty k8s://ns/p/c"
	if got := s.(*linkStream).first.Exe; got != want {
		t.Fatalf("link args %q, want %q", got, want)
	}
}

// A target that stops under a session: the session ends lost with what
// the link said, and the node's stderr.
func TestLink_TargetStopsSaysWhy(t *testing.T) {
	p, pidFile := linkPool(t, "ready")
	pr, err := p.Start(backend.RemoteSpec{Host: "docker://web", Argv: []string{"cat"}}, func(outlog.Stream, []byte) {})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if err := syscall.Kill(readPID(t, pidFile), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	done := make(chan backend.Exit, 1)
	go func() { ex, _ := pr.Wait(); done <- ex }()
	select {
	case ex := <-done:
		const want = `container "web" stopped (exited, exit code 137): node: killed`
		if ex.Lost != want {
			t.Fatalf("lost %q, want %q", ex.Lost, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end when the link said its target stopped")
	}
}

// Every way a link can fail is an error that says what to do, and leaves
// no link running.
func TestLink_Errors(t *testing.T) {
	for _, c := range []struct{ mode, link, want string }{
		{"error", "", `no container "web": start it first`},
		{"proto", "", "speaks link protocol 2, this agentty 1: install agentty and agentty-link from one version"},
		{"crash", "", "agentty-link for docker://web ended before it started the node (exit status 3): panic: the link broke"},
		{"ready", "/no/such/agentty-link", "cannot start agentty-link (/no/such/agentty-link)"},
	} {
		t.Run(c.mode+c.link, func(t *testing.T) {
			t.Setenv(linkEnv, c.mode)
			link := c.link
			if link == "" {
				link = os.Args[0]
			}
			p := NewPool(&Options{Version: "test", Binary: "/x", Link: link})
			defer p.Close()
			_, err := p.Start(backend.RemoteSpec{Host: "docker://web", Argv: []string{"true"}}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v\nwant it to contain %q", err, c.want)
			}
		})
	}
	// The error record and the link's exit race to the reader: 50 rounds
	// must all give the record.
	t.Run("error record before exit, looped", func(t *testing.T) {
		t.Setenv(linkEnv, "error")
		for i := range 50 {
			s, err := dialLink(t.Context(), Target{Scheme: SchemeDocker, Container: "web"}, &Options{Version: "test", Binary: "/x", Link: os.Args[0], Logger: discard()})
			if s != nil || err == nil || err.Error() != `no container "web": start it first` {
				t.Fatalf("round %d: stream %v err %v", i, s, err)
			}
		}
	})
	t.Run("not installed", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := linkPath("")
		if !errors.Is(err, ErrNoLink) || !strings.Contains(err.Error(), "-node-link") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("on PATH", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink(os.Args[0], filepath.Join(dir, LinkName)); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", dir)
		if got, err := linkPath(""); err != nil || got != filepath.Join(dir, LinkName) {
			t.Fatalf("link %q %v", got, err)
		}
	})
}

func readPID(t *testing.T, f string) int {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
