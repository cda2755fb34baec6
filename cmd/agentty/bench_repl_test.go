package main

import (
	"context"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/bench"
)

// TestBenchREPL_EveryReplyExact runs the bench's REPL round trips against
// this binary as the server: python3 on a PTY through the SDK client and
// through the raw JSON-RPC client, on pipes, and the same exchanges
// without agentty. Every row must have all its round trips, each reply
// exactly the value and the next prompt.
func TestBenchREPL_EveryReplyExact(t *testing.T) {
	const n = 20
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := benchSelf(t)
	cfg.N = n
	r, err := bench.RunREPL(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Mismatches != 0 {
		t.Errorf("%d replies were not the value and the prompt", r.Mismatches)
	}
	for name, l := range map[string]bench.Latency{"pty": r.PTY, "pty, raw client": r.PTYRaw, "pipe": r.Pipe, "direct pty": r.Direct, "direct pipes": r.DirectPipe} {
		if l.Count != n || l.MinMs <= 0 || l.MedianMs < l.MinMs || l.MaxMs < l.P95Ms {
			t.Errorf("%s: %+v; want %d round trips timed", name, l, n)
		}
	}
	if r.RawOverheadMedianMs != r.PTYRaw.MedianMs-r.Direct.MedianMs || r.PipeOverheadMedianMs != r.Pipe.MedianMs-r.DirectPipe.MedianMs {
		t.Errorf("overheads %+v do not match their rows", r)
	}
}
