package proctree

import (
	"slices"
	"sync"
)

// Tracker follows one session's processes by ancestry while they run,
// where no cgroup or subreaper holds them (macOS; Linux with
// AGENTTY_PORTABLE=tree). A process becomes a member when it is seen with a
// member as its parent, and stays one however it leaves: a new session or
// process group, a scrubbed environment, a parent that died so it was
// reparented to init or launchd. It stops being one when it is seen gone,
// or its pid is seen held by a process that started at another time.
//
// Membership is only as complete as the scans are frequent: a process that
// is forked and orphaned between two scans is never seen with a member as
// its parent. Terminate's marker and process-group searches still find it
// unless it also left the group and cleared its environment.
type Tracker struct {
	mu      sync.Mutex
	members map[int]uint64 // pid → start time; guarded by mu
	closed  bool           // guarded by mu
	scan    func() ([]Proc, error)
	// feed hears every change of membership; it is called with mu held
	// and must not block.
	feed func(added, dropped []Proc)
}

// newTracker starts tracking at root. scan lists every live process;
// feed (nil: none) hears changes.
func newTracker(root Proc, scan func() ([]Proc, error), feed func(added, dropped []Proc)) *Tracker {
	t := &Tracker{members: map[int]uint64{root.PID: root.StartTime}, scan: scan, feed: feed}
	if feed != nil {
		feed([]Proc{root}, nil)
	}
	return t
}

// update applies one list of every live process: members that are gone or
// whose pid now names another process are dropped, then every process
// below a member is added. It returns what changed.
func (t *Tracker) update(procs []Proc) (added, dropped []Proc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, nil
	}
	byPID := make(map[int]Proc, len(procs))
	kids := make(map[int][]Proc)
	for _, p := range procs {
		byPID[p.PID] = p
		kids[p.PPID] = append(kids[p.PPID], p)
	}
	for pid, start := range t.members {
		if p, ok := byPID[pid]; !ok || p.StartTime != start {
			dropped = append(dropped, Proc{PID: pid, StartTime: start})
			delete(t.members, pid)
		}
	}
	queue := make([]int, 0, len(t.members))
	for pid := range t.members {
		queue = append(queue, pid)
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range kids[pid] {
			// A child cannot have started before its parent; one that did
			// names a parent pid whose first holder has since been reaped.
			if _, ok := t.members[c.PID]; ok || c.StartTime < t.members[pid] {
				continue
			}
			t.members[c.PID] = c.StartTime
			added = append(added, c)
			queue = append(queue, c.PID)
		}
	}
	if t.feed != nil && (len(added) > 0 || len(dropped) > 0) {
		t.feed(added, dropped)
	}
	return added, dropped
}

// Rescan lists the processes now and updates the membership from them.
func (t *Tracker) Rescan() error {
	procs, err := t.scan()
	if err != nil {
		return err
	}
	t.update(procs)
	return nil
}

// Members returns the tracked processes, by pid, as last seen.
func (t *Tracker) Members() []Proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Proc, 0, len(t.members))
	for pid, start := range t.members {
		out = append(out, Proc{PID: pid, StartTime: start})
	}
	slices.SortFunc(out, func(a, b Proc) int { return a.PID - b.PID })
	return out
}

// Len is the number of tracked processes as last seen.
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.members)
}

// forget ends tracking: no more updates, and the feed hears every member
// dropped. It reports whether this call ended it.
func (t *Tracker) forget() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.closed = true
	if t.feed != nil && len(t.members) > 0 {
		var dropped []Proc
		for pid, start := range t.members {
			dropped = append(dropped, Proc{PID: pid, StartTime: start})
		}
		t.feed(nil, dropped)
	}
	t.members = nil
	return true
}
