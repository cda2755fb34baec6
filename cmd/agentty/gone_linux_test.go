package main

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitGone waits until pid has exited (its pidfd turns readable), failing
// the test after goneWithin.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return // already gone
	}
	defer unix.Close(fd)
	if isZombie(pid) {
		return
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(goneWithin/time.Millisecond))
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			t.Fatalf("process %d still alive %v later (%v)", pid, goneWithin, err)
		}
		return
	}
}
