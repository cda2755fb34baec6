package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/bench"
)

// TestBenchVerdicts_Runs runs "agentty bench -verdicts" at 2 runs per
// case against this binary: both verdicts answer every prompt with the
// right state, exact never says awaiting for a program that does not
// read, and neither does inferred for a busy one. (Inferred's awaiting
// during a long sleep or a stalled read is its stated cost, measured, not
// asserted.)
func TestBenchVerdicts_Runs(t *testing.T) {
	const n = 2
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := benchSelf(t)
	cfg.Verdicts, cfg.N = true, n
	res := bench.Run(ctx, cfg)
	v := res.Verdicts
	if v == nil {
		t.Fatalf("no verdict results: %v", res.Failed)
	}
	var out strings.Builder
	res.Print(&out)
	t.Log("\n" + out.String())
	if len(res.Failed) > 0 {
		t.Errorf("failures: %v", res.Failed)
	}
	if len(v.Rows) != 16 {
		t.Fatalf("%d rows, want 8 cases × 2 verdicts", len(v.Rows))
	}
	for _, r := range v.Rows {
		if r.Runs != n || r.Right+r.FalseAwaiting+r.Missed != n {
			t.Errorf("%s, %s: %d runs, %d right, %d false, %d missed; want %d runs accounted for", r.Case, r.Verdict, r.Runs, r.Right, r.FalseAwaiting, r.Missed, n)
		}
		switch {
		case r.Prompt && (r.Right != n || r.Latency.Count != n):
			t.Errorf("%s, %s: %d of %d prompts got the right verdict", r.Case, r.Verdict, r.Right, n)
		case !r.Prompt && (r.Verdict == "exact" || r.Case == "busy loop") && r.FalseAwaiting != 0:
			t.Errorf("%s, %s: %d false awaiting verdicts", r.Case, r.Verdict, r.FalseAwaiting)
		}
	}
}
