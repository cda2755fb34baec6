package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
)

// newStoreClient is newClient with a transcript store in dir (a test's
// temporary directory). The store closes after the manager, so every exit
// is committed.
func newStoreClient(t testing.TB, dir string, cfg session.Config, o *store.Options) (*client, *store.Store) {
	t.Helper()
	st, err := store.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	cfg.NewLog, cfg.Recorder, cfg.NextID = st.NewLog, st.Recorder(), st.NextID
	mgr := session.NewManager(cfg)
	srv := New(mgr, &Options{Store: st})
	st1, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st1, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		mgr.Close()
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return &client{t: t, cs: cs, mgr: mgr}, st
}
