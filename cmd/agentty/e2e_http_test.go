package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/toolcall"
)

// httpServer is a real "agentty serve -http" child.
type httpServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *os.File
	url    string // .../mcp
	done   chan struct{}
}

var urlRE = regexp.MustCompile(`url=(http\S+/mcp)`)

// startHTTPServer launches "agentty serve -http 127.0.0.1:0" with extra
// flags and env and waits for the address it logs.
func startHTTPServer(t *testing.T, env []string, flags ...string) *httpServer {
	t.Helper()
	cmd := selfCommand(t, append([]string{"serve", "-http", "127.0.0.1:0"}, flags...)...)
	cmd.Env = append(cmd.Env, env...)
	s := &httpServer{t: t, cmd: cmd, stderr: logFile(t, "serve-http.log"), done: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(exitWithin):
			_ = cmd.Process.Kill()
			<-s.done
			t.Errorf("server did not exit within %v of SIGTERM", exitWithin)
		}
		if log := readFile(t, s.stderr); strings.Contains(log, "WARNING: DATA RACE") || strings.Contains(log, "panic:") || t.Failed() {
			t.Logf("server stderr:\n%s", log)
			if !t.Failed() {
				t.Error("server reported a data race or panic")
			}
		}
	})
	// The log line is the event; polling the file is how a child's log is watched.
	deadline := time.Now().Add(30 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 20*time.Millisecond) {
		if m := urlRE.FindStringSubmatch(readFile(t, s.stderr)); m != nil {
			s.url = m[1]
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("server exited before listening: %s", readFile(t, s.stderr))
		case <-time.After(delay):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not log its address: %s", readFile(t, s.stderr))
		}
	}
}

func (s *httpServer) connect(token string) *mcp.ClientSession {
	s.t.Helper()
	hc := &http.Client{Transport: tokenTransport{token: token}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		s.t.Fatalf("connect: %v", err)
	}
	s.t.Cleanup(func() { cs.Close() })
	return cs
}

func (s *httpServer) health() map[string]any {
	s.t.Helper()
	resp, err := http.Get(strings.TrimSuffix(s.url, "/mcp") + "/healthz")
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var h map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		s.t.Fatal(err)
	}
	return h
}

type tokenTransport struct{ token string }

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if tt.token != "" {
		r.Header.Set("Authorization", "Bearer "+tt.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestServeHTTP_RefusesUnsafeStart(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	readable := filepath.Join(t.TempDir(), "readable")
	if err := os.WriteFile(readable, []byte("a-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(readable, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"all interfaces without token", []string{"serve", "-http", "0.0.0.0:0", "-" + insecureNoTokenFlag}, "refusing to listen on a non-loopback address without a token"},
		{"token file others can read", []string{"serve", "-http", "127.0.0.1:0", "-token-file", readable}, "is readable by other users (mode 0644)"},
		{"no token and a token", []string{"serve", "-http", "127.0.0.1:0", "-token-file", readable, "-" + insecureNoTokenFlag}, "contradict each other"},
		{"empty token file", []string{"serve", "-http", "0.0.0.0:0", "-token-file", empty}, "is empty"},
		{"missing token file", []string{"serve", "-http", "127.0.0.1:0", "-token-file", empty + ".missing"}, "-token-file"},
		{"key without cert", []string{"serve", "-http", "127.0.0.1:0", "-tls-key", empty}, "bad TLS configuration"},
		{"bad address", []string{"serve", "-http", "7777"}, "want host:port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := selfCommand(t, tc.args...)
			cmd.Env = append(cmd.Env, tokenEnv+"=")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("exit %v, want 2; output:\n%s", err, out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("output does not say %q:\n%s", tc.want, out)
			}
		})
	}
}

// SIGTERM over HTTP: stop accepting, end the waits in flight, kill the
// process trees, exit 0.
func TestServeHTTP_GracefulShutdown(t *testing.T) {
	t.Parallel()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("e2e-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startHTTPServer(t, nil, "-token-file", tokenFile, "-kill-grace", "500ms")
	cs := s.connect("e2e-token")
	tag := newTag(t)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var st readResult
	if res, err := toolcall.Call(ctx, cs, "start_process", map[string]any{"argv": treeArgv, "env": map[string]string{tagVar: tag}, "timeout_ms": 0}, &st); err != nil || res.IsError {
		t.Fatalf("start_process: %v %v", err, res)
	}
	waitTagged(t, tag, 3, 30*time.Second)

	waitDone := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_output", Arguments: map[string]any{"session_id": st.SessionID, "timeout_ms": 60000, "settle_ms": 0, "until": "never"}})
		waitDone <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for s.health()["calls_in_flight"] != float64(1) {
		if time.Now().After(deadline) {
			t.Fatalf("the wait never showed in /healthz: %v", s.health())
		}
		time.Sleep(5 * time.Millisecond) // bounded poll of /healthz
	}

	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(exitWithin):
		t.Fatalf("server still running %v after SIGTERM", exitWithin)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM, want 0", code)
	}
	select {
	case <-waitDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the client's wait did not end with the server")
	}
	waitTagged(t, tag, 0, goneWithin)
	t.Logf("shut down in %v", time.Since(start).Round(time.Millisecond))
	if _, err := http.Get(strings.TrimSuffix(s.url, "/mcp") + "/healthz"); err == nil {
		t.Fatal("still accepting connections after shutdown")
	}
}
