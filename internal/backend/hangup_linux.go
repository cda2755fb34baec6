package backend

import (
	"context"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/proctree"
)

// hangUp sends root what a terminal's hang-up sends its session leader
// (SIGHUP, then SIGCONT), if root is still a member of the session's
// group: the pidfd pins the process, so a recycled pid is never signalled.
// It reports whether root was signalled.
func (b *box) hangUp(root int) bool {
	fd, err := unix.PidfdOpen(root, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if procs, err := b.group.Procs(); err != nil || !slices.Contains(procs, root) {
		return false
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGHUP, nil, 0)
	_ = unix.PidfdSendSignal(fd, unix.SIGCONT, nil, 0)
	return true
}

// waitHungUp waits for the group to empty (until ctx ends), hanging root
// up again at growing intervals while it lives: bash takes a SIGHUP that
// arrives between commands as a note to act on once a read is
// interrupted, then blocks in readline's read with nothing to interrupt it
// (a real terminal's hang-up also ends that read); the next SIGHUP does.
func (b *box) waitHungUp(ctx context.Context, root int) {
	for step := proctree.HangUpRepeat; ; step *= 2 {
		sctx, cancel := context.WithTimeout(ctx, step)
		err := b.group.WaitEmpty(sctx)
		cancel()
		if err == nil || ctx.Err() != nil || !b.hangUp(root) {
			if err != nil && ctx.Err() == nil {
				_ = b.group.WaitEmpty(ctx) // root is gone; the rest may follow
			}
			return
		}
	}
}
