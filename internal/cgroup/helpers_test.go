//go:build linux

package cgroup

import (
	"context"
	"time"

	"golang.org/x/sys/unix"
)

func pidfdOpen(pid int) (int, error) { return unix.PidfdOpen(pid, 0) }

// waitReadable reports whether fd turns readable before ctx ends.
func waitReadable(ctx context.Context, fd int) bool {
	dl, _ := ctx.Deadline()
	n, _ := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(time.Until(dl).Milliseconds()))
	return n == 1
}
