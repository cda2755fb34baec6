//go:build linux || darwin

package proctree

import (
	"errors"
	"fmt"
)

// procKey names one process instance; a pid alone may be recycled.
type procKey struct {
	pid   int
	start uint64
}

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

// liveTracked returns the tracked pids still held by the process that was
// tracked (same start time).
func liveTracked(tracked map[int]uint64) []int {
	var out []int
	for pid, start := range tracked {
		if s, ok := procStart(pid); ok && s == start {
			out = append(out, pid)
		}
	}
	return out
}
