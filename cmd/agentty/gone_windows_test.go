//go:build windows

package main

import (
	"os"
	"testing"
	"time"
)

// waitGone waits until pid has exited (Wait on its process handle, which
// Windows hands to any process of the user), failing the test after
// goneWithin (its Wait is then left behind with the failed test).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		return // already gone
	}
	done := make(chan struct{})
	go func() {
		_, _ = p.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(goneWithin):
		t.Fatalf("process %d still alive %v later", pid, goneWithin)
	}
}
