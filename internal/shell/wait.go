package shell

import (
	"context"
	"time"

	"github.com/agentty/agentty/internal/record"
)

// stop says why waitFor returned.
type stop int

const (
	stopCond      stop = iota // the condition holds
	stopExited                // the shell process is gone
	stopInput                 // the command blocks reading the terminal
	stopTimeout               // the deadline passed
	stopCancelled             // the caller went away
)

// Input probing: output must pause this long before the kernel is asked,
// backing off to maxProbe while a command is busy and silent (the same
// cadence as the session engine's waits).
const (
	minProbe = 250 * time.Microsecond
	maxProbe = 50 * time.Millisecond
)

// waitOpts tune waitFor.
type waitOpts struct {
	// probe, evaluated under mu, says whether a blocked read on the
	// terminal now means "the command wants input" (only once the
	// command has started; before that the reader is the shell's own
	// line editor).
	probe func() bool
	// onOutput is called, without mu, with the running command's newest
	// output each time more of it arrived. It is the hook for progress
	// notifications; nil means none.
	onOutput func(elapsed time.Duration, newest []byte)
}

// waitFor sleeps on the session's output, its exit, a probe timer, the
// deadline and ctx, rescanning the marks on every wake-up, until cond (run
// under mu after each scan) holds.
func (sh *Shell) waitFor(ctx context.Context, deadline time.Time, w *waitOpts, cond func() bool) (stop, record.State, string) {
	if w == nil {
		w = &waitOpts{}
	}
	start := time.Now()
	s := sh.sess
	var lastEnd int64 = -1
	probeAt, probeDelay := start, minProbe
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		changed := s.OutputChanged()
		exited := isDone(s.Done())
		sh.mu.Lock()
		// end is read once, before the scan (so every mark below it is
		// known) and under mu, so the hook gets exactly the bytes up to it
		// and the next round starts there: nothing is skipped.
		end := s.OutputEnd()
		sh.scanLocked()
		ok := cond()
		canProbe := w.probe != nil && w.probe()
		var newest []byte
		if w.onOutput != nil && end != lastEnd {
			newest = sh.newestLocked(lastEnd, end)
		}
		sh.mu.Unlock()
		if ok {
			return stopCond, "", ""
		}
		if exited {
			return stopExited, "", ""
		}
		now := time.Now()
		if end != lastEnd {
			// The first round reports what the command already printed.
			if len(newest) > 0 {
				w.onOutput(now.Sub(start), newest)
			}
			lastEnd = end
			probeAt, probeDelay = now.Add(minProbe), minProbe
		}
		if canProbe && !now.Before(probeAt) {
			if state, detail, waiting := s.AwaitingInput(); waiting {
				// Everything written before the block is in the log now:
				// the command may have ended after all.
				sh.mu.Lock()
				sh.scanLocked()
				ok = cond()
				sh.mu.Unlock()
				if ok {
					return stopCond, "", ""
				}
				return stopInput, state, detail
			}
			probeAt = now.Add(probeDelay)
			probeDelay = min(probeDelay*2, maxProbe)
		}
		if !now.Before(deadline) {
			return stopTimeout, "", ""
		}
		next := deadline
		if canProbe && probeAt.Before(next) {
			next = probeAt
		}
		timer.Reset(next.Sub(now))
		select {
		case <-changed:
		case <-s.Done():
		case <-timer.C:
		case <-ctx.Done():
			return stopCancelled, "", ""
		}
	}
}

// newestLocked returns the running command's output in [since, end) (from
// its start when since < 0), bounded to its last 4 KiB, for the progress
// hook.
func (sh *Shell) newestLocked(since, end int64) []byte {
	r := sh.run
	if r == nil || r.outStart < 0 {
		return nil
	}
	if r.done() {
		end = min(end, r.outEnd)
	}
	from := max(since, r.outStart, end-4096)
	if from >= end {
		return nil
	}
	return sh.sess.RawOutput(from, int(end-from)).Data
}
