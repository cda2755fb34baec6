package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkColdStart_ToolsList measures the server core's share of a cold
// start: New with the store and the guard configured (both start after
// the reply: the guard 100 ms after New or before the first session, the
// store's database at its first use), Serve, initialize and the tools/list
// reply, as agentty serve -standalone does after the process has started
// (the bench command measures the whole process). Close is outside the
// timer.
func BenchmarkColdStart_ToolsList(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, withStore := range []bool{false, true} {
		name := "no-store"
		if withStore {
			name = "store"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cfg := Config{Version: "bench", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
					Guard: &GuardConfig{Exe: exe, Args: []string{guardArg}}}
				if withStore {
					b.StopTimer()
					cfg.Store = &StoreConfig{Dir: b.TempDir()}
					b.StartTimer()
				}
				s, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				ct, st := mcp.NewInMemoryTransports()
				served := make(chan error, 1)
				go func() { served <- s.Serve(context.Background(), memTransport{st}) }()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := cs.ListTools(context.Background(), nil); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cs.Close()
				_ = s.Close()
				<-served
				b.StartTimer()
			}
		})
	}
}
