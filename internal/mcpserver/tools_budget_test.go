package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
)

// toolsListBudget is the most bytes the tools/list reply may take on the
// wire with every tool listed: it is read into the model's context in every
// conversation. Issue 19 set 20 KiB; keep new descriptions to a sentence or
// two and describe a shared parameter once.
const toolsListBudget = 20 << 10

// TestToolsList_Budget measures the JSON-RPC message the server writes in
// reply to tools/list (as the stdio transport sends it, without the
// newline) and fails above toolsListBudget, naming the largest tools.
func TestToolsList_Budget(t *testing.T) {
	reply, tools, _ := listWire(t, nil)
	t.Logf("tools/list reply: %d bytes for %d tools (budget %d)", len(reply), len(tools), toolsListBudget)
	if len(reply) > toolsListBudget {
		for _, tool := range tools {
			b, _ := json.Marshal(tool)
			t.Logf("%6d %s", len(b), tool.Name)
		}
		t.Errorf("the tools/list reply is %d bytes, over the %d-byte budget: shorten descriptions, describe shared parameters once (bareParams), move explanations to toolNotes",
			len(reply), toolsListBudget)
	}
}

// TestToolSchemas_Resolve resolves every tool's full input schema, which
// add leaves to the tool's first call.
func TestToolSchemas_Resolve(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	connect(t, mgr, New(mgr, withEngine(mgr, &Options{Hosts: noHosts{}})), "resolve", nil, nil, nil)
	names := docTools.names()
	if len(names) < 24 {
		t.Fatalf("%d tools recorded, want at least 24", len(names))
	}
	for _, name := range names {
		d, _ := docTools.get(name)
		if _, err := d.in().Resolve(nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// recordingTransport records every message the server writes, encoded as
// the stdio transport encodes it, before passing it on.
type recordingTransport struct {
	mcp.Transport
	mu   sync.Mutex
	msgs [][]byte // guarded by mu
}

func (r *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, r: r}, nil
}

func (r *recordingTransport) written() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.msgs)
}

type recordingConn struct {
	mcp.Connection
	r *recordingTransport
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.r.mu.Lock()
	c.r.msgs = append(c.r.msgs, b)
	c.r.mu.Unlock()
	return c.Connection.Write(ctx, msg)
}
