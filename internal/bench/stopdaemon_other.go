//go:build !linux

package bench

import (
	"os"
	"syscall"
	"time"
)

// stopDaemon ends the bench's daemon (SIGTERM: it ends its sessions and
// exits) and waits until it is gone, at most 30 s. Without a pidfd nothing
// signals its exit to a process that is not its parent: poll kill(pid, 0).
func stopDaemon(pid int) {
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.SIGTERM) != nil {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if p.Signal(syscall.Signal(0)) != nil {
			return
		}
	}
}
