package mcpserver

import (
	"testing"

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
	c := connect(t, mgr, New(mgr, withEngine(mgr, &Options{Store: st})), "test-agent", nil, nil, func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return c, st
}
