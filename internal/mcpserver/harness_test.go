package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/toolcall"
)

// client is an MCP client connected in memory to a fresh server.
type client struct {
	t   testing.TB
	cs  *mcp.ClientSession
	mgr *session.Manager
}

func newClient(t testing.TB, cfg session.Config) *client {
	t.Helper()
	mgr := session.NewManager(cfg)
	return connect(t, mgr, New(mgr, withEngine(mgr, nil)), "test", nil, nil, nil)
}

// connect joins a new SDK client named name to srv over in-memory
// transports; cleanup closes the client, waits for the server side, closes
// mgr and then runs after (if any).
func connect(t testing.TB, mgr *session.Manager, srv *mcp.Server, name string, co *mcp.ClientOptions, cso *mcp.ClientSessionOptions, after func()) *client {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, co).Connect(ctx, ct, cso)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		mgr.Close()
		if after != nil {
			after()
		}
	})
	return &client{t: t, cs: cs, mgr: mgr}
}

// call runs a tool that must succeed and decodes its structured result.
func (c *client) call(name string, args map[string]any, out any) *mcp.CallToolResult {
	c.t.Helper()
	res, err := c.try(name, args, out)
	if err != nil {
		c.t.Fatalf("%s(%v): %v", name, args, err)
	}
	if res.IsError {
		c.t.Fatalf("%s(%v): tool error: %s", name, args, text(res))
	}
	return res
}

func (c *client) try(name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	return toolcall.Call(ctx, c.cs, name, args, out)
}

// toolError runs a tool that must fail and returns its message.
func (c *client) toolError(name string, args map[string]any) string {
	c.t.Helper()
	res, err := c.try(name, args, nil)
	if err != nil {
		c.t.Fatalf("%s: protocol error %v (want a tool error)", name, err)
	}
	if !res.IsError {
		c.t.Fatalf("%s(%v) succeeded, want a tool error: %s", name, args, text(res))
	}
	return text(res)
}

var text = toolcall.Text

// start runs start_process and returns its result.
func (c *client) start(args map[string]any) StartResult {
	c.t.Helper()
	var r StartResult
	c.call("start_process", args, &r)
	return r
}

// on is c reporting failures on t, a subtest.
func (c *client) on(t *testing.T) *client {
	cc := *c
	cc.t = t
	return &cc
}
