//go:build linux && (amd64 || arm64)

package backend

import (
	"os"
	"strconv"
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
		pid := p.PID()
		if n := procFds(t, pid); n < 5 {
			t.Fatalf("%s: %d descriptors open on /proc/%d while probing: want the probe's files kept", p.Kind(), n, pid)
		}
		syscall.Kill(-p.PID(), syscall.SIGKILL)
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		p.Close()
		if n := procFds(t, pid); n != 0 {
			t.Fatalf("%s: %d descriptors open on /proc/%d after the session ended", p.Kind(), n, pid)
		}
	}
}

// procFds counts this process's descriptors open on /proc/PID files (the
// link names the path they were opened by, also once the process is gone).
func procFds(t testing.TB, pid int) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && strings.HasPrefix(target, "/proc/"+strconv.Itoa(pid)+"/") {
			n++
		}
	}
	return n
}
