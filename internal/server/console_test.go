package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/console/api"
	"github.com/agentty/agentty/internal/console/client"
	"github.com/agentty/agentty/internal/logbuf"
)

// consoleTransport is a front end that carries one in-memory MCP client
// and serves Endpoint.Console over HTTP, as the daemon and web front ends
// mount it.
type consoleTransport struct {
	mcp     mcp.Transport
	console chan<- http.Handler
}

func (c consoleTransport) Serve(ctx context.Context, ep Endpoint) error {
	c.console <- ep.Console
	return ep.MCP.Run(ctx, c.mcp)
}

// consoleServer is a server with a store and an audit log, an agent's MCP
// client and the console over HTTP and a unix socket.
type consoleServer struct {
	s      *Server
	agent  *mcp.ClientSession
	url    string // the console over HTTP
	socket string // the same over a unix socket
	audit  string // the audit log's directory
}

func startConsole(t testing.TB, lease time.Duration) *consoleServer {
	t.Helper()
	var log logbuf.Buffer
	cfg := testConfig(t, t.TempDir(), &log)
	cfg.Guard = nil
	cfg.Sessions.LeaseTimeout = lease
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	handlers := make(chan http.Handler, 1)
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), consoleTransport{mcp: st, console: handlers}) }()
	h := <-handlers
	if h == nil {
		t.Fatal("Endpoint.Console is nil")
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", h)
	hs := httptest.NewServer(mux)
	sock := filepath.Join(t.TempDir(), "console.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	us := &http.Server{Handler: mux}
	go func() { _ = us.Serve(ln) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		hs.CloseClientConnections()
		hs.Close()
		_ = us.Close()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		<-served
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return &consoleServer{s: s, agent: cs, url: hs.URL, socket: sock, audit: cfg.Audit.Dir}
}

// python starts a python3 REPL in a PTY and waits for its prompt.
func (c *consoleServer) python(t *testing.T) string {
	t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
		Output    string `json:"output"`
	}
	call(t, c.agent, "start_process", map[string]any{"argv": []string{"python3", "-q"}, "mode": "pty", "until": ">>> "}, &out)
	if !strings.Contains(out.Output, ">>> ") {
		t.Fatalf("no prompt: %q", out.Output)
	}
	return out.SessionID
}

func (c *consoleServer) get(t *testing.T, path string, out any) int {
	t.Helper()
	resp, err := http.Get(c.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode
}

func (c *consoleServer) client(t testing.TB) *client.Client {
	t.Helper()
	cl, err := client.New(client.Target{Socket: c.socket})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func TestConsole_SessionsLogKill(t *testing.T) {
	c := startConsole(t, 0)
	id := c.python(t)
	var sent struct {
		Output string `json:"output"`
	}
	call(t, c.agent, "send_input", map[string]any{"session_id": id, "text": "print(6*7)", "enter": true, "until": ">>> "}, &sent)

	var list []api.Session
	if code := c.get(t, "/v1/sessions", &list); code != 200 || len(list) != 1 {
		t.Fatalf("GET /v1/sessions: %d %+v", code, list)
	}
	s := list[0]
	if s.ID != id || !s.Live || s.Mode != "pty" || s.Holder != "" || s.Command != "python3 -q" || s.ExitCode != nil {
		t.Errorf("session = %+v", s)
	}
	var one api.Session
	if code := c.get(t, "/v1/sessions/"+id, &one); code != 200 || one.ID != id {
		t.Errorf("GET one: %d %+v", code, one)
	}
	var e api.Error
	if code := c.get(t, "/v1/sessions/nope", &e); code != 404 || !strings.Contains(e.Error, "nope") {
		t.Errorf("unknown session: %d %+v", code, e)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := c.client(t)
	t.Run("log", func(t *testing.T) {
		var b strings.Builder
		if err := cl.Log(ctx, id, client.LogOptions{}, &b); err != nil {
			t.Fatal(err)
		}
		if want := ">>> print(6*7)\n42\n>>> "; b.String() != want {
			t.Errorf("log = %q, want %q", b.String(), want)
		}
		b.Reset()
		if err := cl.Log(ctx, id, client.LogOptions{SinceLine: 1}, &b); err != nil {
			t.Fatal(err)
		}
		if want := "42\n>>> "; b.String() != want {
			t.Errorf("log since line 1 = %q, want %q", b.String(), want)
		}
		b.Reset()
		if err := cl.Log(ctx, id, client.LogOptions{Raw: true}, &b); err != nil {
			t.Fatal(err)
		}
		if want := ">>> print(6*7)\r\n42\r\n>>> "; b.String() != want {
			t.Errorf("raw log = %q, want %q", b.String(), want)
		}
	})
	t.Run("follow ends at exit", func(t *testing.T) {
		done := make(chan string, 1)
		go func() {
			var b strings.Builder
			err := cl.Log(ctx, id, client.LogOptions{Follow: true, SinceLine: 2}, &b)
			if err != nil {
				b.WriteString("ERROR " + err.Error())
			}
			done <- b.String()
		}()
		call(t, c.agent, "send_input", map[string]any{"session_id": id, "text": "print('bye'); exit(3)", "enter": true, "until": "bye"}, &sent)
		got := <-done
		if want := ">>> print('bye'); exit(3)\nbye\n"; got != want {
			t.Errorf("follow = %q, want %q", got, want)
		}
		var one api.Session
		c.get(t, "/v1/sessions/"+id, &one)
		if one.ExitCode == nil || *one.ExitCode != 3 || one.State != "exited" {
			t.Errorf("after exit: %+v", one)
		}
	})
	t.Run("kill", func(t *testing.T) {
		var out struct {
			SessionID string `json:"session_id"`
		}
		call(t, c.agent, "start_process", map[string]any{"command": "sleep 60"}, &out)
		s, err := cl.Kill(ctx, out.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if s.State != "exited" || s.Signal != "SIGTERM" || s.SignalNumber != int(syscall.SIGTERM) {
			t.Errorf("killed: %+v", s)
		}
		var e api.Error
		resp, err := http.Post(c.url+"/v1/sessions/nope/kill", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_ = json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != 404 || e.Error == "" {
			t.Errorf("kill unknown: %d %+v", resp.StatusCode, e)
		}
	})
	t.Run("search", func(t *testing.T) {
		var res api.SearchResult
		if code := c.get(t, "/v1/search?q=^bye$&session_id="+id, &res); code != 200 || len(res.Matches) != 1 || res.Matches[0].Line != 4 {
			t.Errorf("search: %d %+v", code, res)
		}
	})
}

// auditLines returns the audit log's lines of one event type.
func auditLines(t *testing.T, dir, event string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "agentty-audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["event"] == event {
			out = append(out, m)
		}
	}
	return out
}
