//go:build unix && !linux

package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// waitGone waits until pid has exited, failing the test after goneWithin.
// Without a pidfd nothing tells a process that is not the parent of
// another's exit, so kill(pid, 0) is repeated until the deadline. (A
// zombie still answers it: on macOS a test that leaves one fails here.)
func waitGone(t *testing.T, pid int) {
	t.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		return
	}
	for deadline := time.Now().Add(goneWithin); p.Signal(syscall.Signal(0)) == nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive %v later", pid, goneWithin)
		}
	}
}
