//go:build linux || darwin

package proctree

import (
	"context"
	"time"

	"golang.org/x/sys/unix"
)

// hangUp sends root, if it is among procs and ignores SIGTERM, what the
// kernel sends a session leader when its terminal hangs up: SIGHUP, then
// SIGCONT. An interactive shell ignores SIGTERM, so at its prompt SIGTERM
// alone would leave it running until SIGKILL; the hang-up ends it the way
// closing its terminal window would, and the status it ends with is its
// own (killed by SIGHUP, or the code its SIGHUP handling exits with).
// It reports whether root was hung up.
func (k *killer) hangUp(procs []Proc, root int) bool {
	for _, p := range procs {
		if p.PID != root {
			continue
		}
		if ignores(root, unix.SIGTERM) {
			key := procKey{p.PID, p.StartTime}
			k.signalProc(key, unix.SIGHUP)
			k.signalProc(key, unix.SIGCONT)
			return true
		}
		return false
	}
	return false
}

// waitHungUp is wait for a tree whose root was hung up: the hang-up is
// sent again at growing intervals while the root lives. bash takes a
// SIGHUP that arrives between commands as a note to act on when its read
// is interrupted, and then blocks in readline's read with nothing left to
// interrupt it (a real terminal's hang-up also ends that read); the next
// SIGHUP does.
func (k *killer) waitHungUp(ctx context.Context, grace time.Duration, procs []Proc, root int) {
	deadline := time.Now().Add(grace)
	for step := HangUpRepeat; ; step *= 2 {
		k.wait(ctx, min(step, time.Until(deadline)))
		if !k.pending() || ctx.Err() != nil || !time.Now().Before(deadline) {
			return
		}
		k.hangUp(procs, root)
	}
}

// HangUpRepeat is the first pause before a hung-up root that is still
// running is hung up again; each later pause doubles.
const HangUpRepeat = 100 * time.Millisecond
