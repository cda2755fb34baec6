package sshbackend_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/sshbackend"
	"github.com/agentty/agentty/internal/sshtest"
)

// TestPool_ClosesEverything starts sessions on a real sshd, ends them, closes
// the pool and checks that every goroutine it started is gone.
func TestPool_ClosesEverything(t *testing.T) {
	srv := sshtest.Start(t, "agentty-sshb")
	before := runtime.NumGoroutine()
	pool := sshbackend.NewPool(testOptions(t, srv))
	var mu sync.Mutex
	var out strings.Builder
	sink := func(_ outlog.Stream, p []byte) {
		mu.Lock()
		out.Write(p)
		mu.Unlock()
	}
	var procs []backend.Process
	for i, pty := range []bool{true, false, true, false} {
		p, err := pool.Start(backend.RemoteSpec{Host: srv.Target(srv.Addr), SessionID: "s" + string(rune('0'+i)), Marker: "pooltest/" + string(rune('0'+i)),
			Argv: []string{"cat"}, PTY: pty, Rows: 24, Cols: 80}, sink)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Inspect(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	if hs := pool.Hosts(); len(hs) != 1 || len(hs[0].Sessions) != 4 {
		t.Fatalf("hosts %+v", hs)
	}
	for _, p := range procs {
		if err := p.Terminate(context.Background(), time.Second); err != nil {
			t.Fatal(err)
		}
		ex, err := p.Wait()
		if err != nil || ex.Signal == 0 || ex.Lost != "" {
			t.Fatalf("exit %+v err %v", ex, err)
		}
		p.Close()
	}
	pool.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		// Exiting goroutines give no signal to wait on.
		time.Sleep(5 * time.Millisecond)
	}
}
