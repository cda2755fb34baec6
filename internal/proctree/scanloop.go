package proctree

import (
	"sync"
	"time"
)

// scanLoop lists the processes for every open Tracker in one pass, on a
// clock (and, where arm is set, when a member forks or exits) while there is at least one; its goroutine
// starts with the first tracker and is stopped and waited for when the
// last one leaves.
type scanLoop struct {
	every time.Duration
	list  func() ([]Proc, error)
	// arm (nil: none) is called on the loop's goroutine before each wait
	// with the members to watch, for platforms that can be told of their
	// forks and exits (kqueue); it returns a channel that fires on one.
	arm func([]Proc) <-chan struct{}

	mu       sync.Mutex
	trackers map[*Tracker]bool // guarded by mu
	stop     chan struct{}     // guarded by mu; nil: not running
	done     chan struct{}     // guarded by mu
}

func newScanLoop(every time.Duration, list func() ([]Proc, error), arm func([]Proc) <-chan struct{}) *scanLoop {
	return &scanLoop{every: every, list: list, arm: arm, trackers: map[*Tracker]bool{}}
}

func (l *scanLoop) add(t *Tracker) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trackers[t] = true
	if l.stop == nil {
		l.stop, l.done = make(chan struct{}), make(chan struct{})
		go l.run(l.stop, l.done)
	}
}

func (l *scanLoop) remove(t *Tracker) {
	l.mu.Lock()
	delete(l.trackers, t)
	var stop, done chan struct{}
	if len(l.trackers) == 0 && l.stop != nil {
		stop, done = l.stop, l.done
		l.stop, l.done = nil, nil
	}
	l.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// open returns the trackers now open.
func (l *scanLoop) open() []*Tracker {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*Tracker, 0, len(l.trackers))
	for t := range l.trackers {
		out = append(out, t)
	}
	return out
}

func (l *scanLoop) run(stop, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		var fired <-chan struct{}
		if l.arm != nil {
			var members []Proc
			for _, t := range l.open() {
				members = append(members, t.Members()...)
			}
			fired = l.arm(members)
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		case <-fired:
		}
		procs, err := l.list()
		if err != nil {
			continue // the next tick tries again
		}
		for _, t := range l.open() {
			t.update(procs)
		}
	}
}
