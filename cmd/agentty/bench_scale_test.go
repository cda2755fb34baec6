package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/bench"
)

// TestBenchScale_AnswersAndLeavesNothing runs "agentty bench -scale" at
// 100 sessions (50 PTY python REPLs, 50 pipe cats) against this binary as
// the server, through the Go SDK client over stdio: every session must
// answer its own token while all of them exist, and once they are deleted
// the server's goroutines and open descriptors must be back at what they
// were before (the bench waits for that with a deadline). Memory is not
// asserted: the race detector's shadow memory is most of it here.
func TestBenchScale_AnswersAndLeavesNothing(t *testing.T) {
	const n = 100
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := benchSelf(t)
	cfg.Scale, cfg.ReturnWithin, cfg.RSSWithin = n, time.Minute, -1
	res := bench.Run(ctx, cfg)
	sc := res.Scale
	if sc == nil {
		t.Fatalf("no scale results: %v", res.Failed)
	}
	var out strings.Builder
	res.Print(&out)
	t.Log("\n" + out.String())
	if len(res.Failed) > 0 {
		t.Errorf("failures: %v", res.Failed)
	}
	if sc.Answered != n || sc.Mismatches != 0 || sc.RoundTrip.Count != n || sc.RoundTripPTY.Count != n/2 || sc.RoundTripPipe.Count != n/2 {
		t.Errorf("answered %d, mismatched %d, round trips %d (pty %d, pipe %d); want every one of %d sessions answered once with its own token",
			sc.Answered, sc.Mismatches, sc.RoundTrip.Count, sc.RoundTripPTY.Count, sc.RoundTripPipe.Count, n)
	}
	// Each session holds at least its exit goroutine and one descriptor,
	// so the counts are the server's and were read while they existed.
	if sc.Goroutines.Full < sc.Goroutines.Before+n || sc.FDs.Full < sc.FDs.Before+n {
		t.Errorf("with %d sessions: goroutines %d → %d, descriptors %d → %d; want at least %d more of each",
			n, sc.Goroutines.Before, sc.Goroutines.Full, sc.FDs.Before, sc.FDs.Full, n)
	}
	if sc.Goroutines.After > sc.Goroutines.Before {
		t.Errorf("goroutines: %d before, %d a minute after deleting the sessions; the server's goroutines:\n%s",
			sc.Goroutines.Before, sc.Goroutines.After, sc.LeakedStacks)
	}
	if sc.FDs.After > sc.FDs.Before {
		t.Errorf("open descriptors: %d before, %d a minute after deleting the sessions", sc.FDs.Before, sc.FDs.After)
	}
}

// benchSelf is a bench configuration that measures this test binary as
// the server (TestMain runs the real command line with e2eEnv set), with
// its own state directories and the race detector's exit delay off.
func benchSelf(t *testing.T) bench.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	race := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return bench.Config{Exe: exe, Version: "test",
		Env: []string{e2eEnv + "=1", "GORACE=" + race, "XDG_STATE_HOME=" + state, "XDG_RUNTIME_DIR=" + filepath.Join(state, "run")}}
}
