package httpserver

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResources_SubscribeOverHTTP: subscriptions work on every revision
// (resources/subscribe for 2025, subscriptions/listen for 2026-07-28) and
// belong to their client: unsubscribing or disconnecting ends them.
func TestResources_SubscribeOverHTTP(t *testing.T) {
	s := startServer(t, nil)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			var mu sync.Mutex
			got := 0
			more := make(chan struct{}, 100)
			ht := &http.Transport{}
			defer ht.CloseIdleConnections()
			hc := &http.Client{Transport: ht}
			var mt mcp.Transport = &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: hc, MaxRetries: -1}
			if tr.sse {
				mt = &mcp.SSEClientTransport{Endpoint: s.base + "/sse", HTTPClient: hc}
			}
			copts := &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
				mu.Lock()
				got++
				mu.Unlock()
				more <- struct{}{}
			}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(context.Background(), mt, &mcp.ClientSessionOptions{ProtocolVersion: tr.version})
			if err != nil {
				t.Fatal(err)
			}
			c := &client{t: t, cs: cs}
			var start struct {
				SessionID string `json:"session_id"`
			}
			c.call("start_process", map[string]any{"command": "cat", "timeout_ms": 0}, &start)
			uri := "agentty://sessions/" + start.SessionID + "/output"
			subscribed := make(chan error, 1)
			go func() { subscribed <- cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}) }()
			waitWatching(t, s, 1)
			c.call("send_input", map[string]any{"session_id": start.SessionID, "text": "ping", "enter": true, "until": "ping"}, nil)
			select {
			case <-more:
			case <-time.After(20 * time.Second):
				t.Fatal("no notifications/resources/updated")
			}
			if err := cs.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			waitWatching(t, s, 0)
			// Subscribed again, then the client goes away: the watcher ends.
			go func() { _ = cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}) }()
			waitWatching(t, s, 1)
			cs.Close()
			waitWatching(t, s, 0)
			if sess, err := s.mgr.Get(start.SessionID); err == nil {
				_, _ = sess.Terminate(context.Background(), 0)
			}
			mu.Lock()
			defer mu.Unlock()
			if got < 1 {
				t.Fatalf("%d notifications", got)
			}
		})
	}
}

func waitWatching(t *testing.T, s *testServer, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.mgr.Watching() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d watchers, want %d", s.mgr.Watching(), want)
		}
		time.Sleep(5 * time.Millisecond) // a counter: no event to wait on
	}
}
