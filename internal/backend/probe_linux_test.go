//go:build linux && (amd64 || arm64)

package backend

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/inputwait"
)

// TestProcess_ProbeFilesClosedAtExit: the /proc files the input-wait probe
// keeps open between probes are all closed once the process has ended, so
// a session leaves no descriptor behind.
func TestProcess_ProbeFilesClosedAtExit(t *testing.T) {
	for _, start := range []func(Spec, func(func()), Sink) (Process, error){StartPTY, StartPipe} {
		before := openFds(t)
		var c collector
		sp := spec(`exec python3 -i -q -c "import threading, time; threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()"`)
		p, err := start(sp, direct, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		// Polling is the only option: the kernel sends no event when a
		// process blocks in a syscall.
		deadline := time.Now().Add(10 * time.Second)
		for {
			pr, err := p.Inspect()
			if err == nil && pr.State == inputwait.AwaitingInput && strings.Contains(pr.Detail, "(python3)") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: never awaiting input: %+v, %v", p.Kind(), pr, err)
			}
			<-time.After(5 * time.Millisecond)
		}
		if during := openFds(t); during < before+5 {
			t.Fatalf("%s: %d descriptors open while probing, %d before: want the probe's files kept", p.Kind(), during, before)
		}
		syscall.Kill(-p.PID(), syscall.SIGKILL)
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		p.Close()
		if after := openFds(t); after != before {
			t.Fatalf("%s: %d descriptors open after the session ended, %d before", p.Kind(), after, before)
		}
	}
}

// openFds counts this process's open descriptors.
func openFds(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents) - 1 // less the one listing
}
