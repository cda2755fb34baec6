//go:build linux

package proctree

import (
	"errors"
	"fmt"
	"time"
)

// trackEvery is how often Linux's portable tree (AGENTTY_PORTABLE=tree)
// lists /proc for the trackers. Linux tells no one of a fork without the
// proc connector (root only) or ptrace, so the list is taken on a clock,
// one pass for all sessions and only while one is tracked: about 9 µs of
// CPU per process on the machine (BenchmarkListProcs: 1.0 ms for 116), so
// 1% of one CPU per 100 processes at this period.
const trackEvery = 100 * time.Millisecond

// Track starts tracking the tree of root, a process this one has just
// started, with one scan of its own at once. Close ends it.
func Track(root int) (*Tracker, error) {
	start, ok := procStart(root)
	if !ok {
		return nil, fmt.Errorf("proctree: track %d: %w", root, errGone)
	}
	t := newTracker(Proc{PID: root, StartTime: start}, listProcs, feedGuard)
	if err := t.Rescan(); err != nil {
		t.forget()
		return nil, err
	}
	scans.add(t)
	return t, nil
}

// Close ends tracking; the shared scan stops with the last tracker. Safe
// to call twice.
func (t *Tracker) Close() {
	if t.forget() {
		scans.remove(t)
	}
}

var scans = newScanLoop(trackEvery, listProcs, nil)

// errGone is a process that exited before it could be looked at.
var errGone = errors.New("process is gone")

// memberMap returns a copy of the members, pid → start time.
func (t *Tracker) memberMap() map[int]uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[int]uint64, len(t.members))
	for pid, start := range t.members {
		out[pid] = start
	}
	return out
}
