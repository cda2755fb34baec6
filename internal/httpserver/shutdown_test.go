package httpserver

import (
	"context"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/mcpserver"
	"github.com/agentty/agentty/internal/session"
)

// Shutdown ends waits in flight at once, over every transport, instead of
// waiting for their timeouts, and stops accepting.
func TestServe_ShutdownEndsWaits(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			mgr := session.NewManager(session.Config{})
			defer mgr.Close()
			hs, err := New(newMCP(mgr), &Options{Addr: "127.0.0.1:0", ShutdownGrace: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- hs.Serve(ctx) }()
			s := &testServer{Server: hs, mgr: mgr, base: hs.URL()}
			c := s.connect(t, tr, clientOpts{})
			var busy mcpserver.StartResult
			c.call("start_process", map[string]any{"argv": []string{"sleep", "600"}, "mode": "pipe", "timeout_ms": 0}, &busy)
			waitDone := make(chan error, 1)
			go func() {
				_, err := c.cs.CallTool(context.Background(), mcpParams("read_output", map[string]any{"session_id": busy.SessionID, "timeout_ms": 60000, "settle_ms": 0, "until": "never"}))
				waitDone <- err
			}()
			s.waitHealth(t, 30*time.Second, "the wait is in flight", func(h Health) bool { return h.CallsInFlight == 1 })

			start := time.Now()
			cancel()
			select {
			case err := <-served:
				if err != nil {
					t.Fatalf("Serve: %v", err)
				}
			case <-time.After(20 * time.Second): // far below the wait's 60 s and the 30 s grace
				t.Fatal("Serve still running 20 s after its context ended: a wait held the shutdown")
			}
			t.Logf("shut down in %v", time.Since(start).Round(time.Millisecond))
			select {
			case <-waitDone:
			case <-time.After(20 * time.Second):
				t.Fatal("the client's wait did not end")
			}
			if _, err := s.connectErr(tr); err == nil {
				t.Fatal("a new client connected after shutdown")
			}
		})
	}
}
