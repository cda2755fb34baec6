package httpserver

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/runner"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/shell"
	"github.com/agentty/agentty/internal/toolcall"
)

// callTimeout bounds every tool call so a hung server fails the test.
const callTimeout = 90 * time.Second

// testServer is a real agentty HTTP server on 127.0.0.1:0.
type testServer struct {
	*Server
	mgr  *session.Manager
	base string // http://127.0.0.1:port
}

func startServer(t testing.TB, o *Options) *testServer {
	t.Helper()
	opts := Options{}
	if o != nil {
		opts = *o
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	mgr := session.NewManager(session.Config{})
	hs, err := New(newMCP(mgr), &opts)
	if err != nil {
		mgr.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		mgr.Close()
	})
	return &testServer{Server: hs, mgr: mgr, base: hs.URL()}
}

// transport names how a test client connects.
type transport struct {
	name    string
	sse     bool   // legacy HTTP+SSE at /sse
	version string // protocol revision asked for (streamable)
}

var transports = []transport{
	{name: "streamable-2026-07-28", version: "2026-07-28"},
	{name: "streamable-2025-11-25", version: "2025-11-25"},
	{name: "streamable-2025-06-18", version: "2025-06-18"},
	{name: "sse", sse: true, version: "2025-11-25"},
}

// clientOpts configure connect.
type clientOpts struct {
	token    string
	progress func(*mcp.ProgressNotificationParams)
	dialer   *connTracker // nil: a fresh http.Transport
}

// client is an MCP client of a testServer.
type client struct {
	t  testing.TB
	cs *mcp.ClientSession
}

func (s *testServer) connect(t testing.TB, tr transport, o clientOpts) *client {
	t.Helper()
	cs, err := s.dial(t, tr, o)
	if err != nil {
		t.Fatalf("connect %s: %v", tr.name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}
}

// connectErr tries to connect and reports the error.
func (s *testServer) connectErr(tr transport) (*mcp.ClientSession, error) {
	cs, err := s.dial(nil, tr, clientOpts{})
	if err == nil {
		cs.Close()
	}
	return cs, err
}

func (s *testServer) dial(t testing.TB, tr transport, o clientOpts) (*mcp.ClientSession, error) {
	ht := &http.Transport{}
	if o.dialer != nil {
		ht.DialContext = o.dialer.dial
	}
	if t != nil {
		t.Cleanup(ht.CloseIdleConnections)
	} else {
		defer ht.CloseIdleConnections()
	}
	hc := &http.Client{Transport: ht}
	if o.token != "" {
		hc.Transport = bearer{token: o.token, next: ht}
	}
	var mt mcp.Transport
	if tr.sse {
		mt = &mcp.SSEClientTransport{Endpoint: s.base + "/sse", HTTPClient: hc}
	} else {
		mt = &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: hc, MaxRetries: -1}
	}
	copts := &mcp.ClientOptions{}
	if o.progress != nil {
		copts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { o.progress(r.Params) }
	}
	// Not a deadline: the legacy SSE client keeps its event stream on this
	// context for the whole connection.
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(context.Background(), mt, &mcp.ClientSessionOptions{ProtocolVersion: tr.version})
}

// call runs a tool that must succeed and decodes its structured result.
func (c *client) call(name string, args map[string]any, out any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := toolcall.Call(ctx, c.cs, name, args, out)
	if err != nil {
		c.t.Fatalf("%s(%v): %v", name, args, err)
	}
	if res.IsError {
		c.t.Fatalf("%s(%v): tool error: %s", name, args, toolcall.Text(res))
	}
}

// bearer adds the Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connTracker dials real TCP connections and can cut them all, as a client
// machine that crashes or loses its network would.
type connTracker struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (d *connTracker) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		d.mu.Lock()
		d.conns = append(d.conns, c)
		d.mu.Unlock()
	}
	return c, err
}

func (d *connTracker) cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.conns {
		_ = c.Close()
	}
	d.conns = nil
}

// health reads /healthz.
func (s *testServer) health(t testing.TB) Health {
	t.Helper()
	resp, err := http.Get(s.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// waitHealth polls /healthz until cond holds or within passes.
func (s *testServer) waitHealth(t testing.TB, within time.Duration, what string, cond func(Health) bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		h := s.health(t)
		if cond(h) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s never held; last /healthz %+v", within, what, h)
		}
		<-tick.C
	}
}

func mcpParams(name string, args map[string]any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}

// mcpServerForTest is an agentty MCP server on a manager closed with t.
func mcpServerForTest(t testing.TB) *mcp.Server {
	mgr := session.NewManager(session.Config{})
	t.Cleanup(mgr.Close)
	return newMCP(mgr)
}

// newMCP is agentty's MCP server over mgr, with the shell registry and
// runner the server core builds.
func newMCP(mgr *session.Manager) *mcp.Server {
	return mcpserver.New(mgr, &mcpserver.Options{Shells: shell.NewRegistry(mgr), Runner: runner.New(mgr, nil)})
}
