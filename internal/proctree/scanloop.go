package proctree

import (
	"sync"
	"time"
)

// scanLoop lists the processes for every open Tracker in one pass while
// there is at least one: on a clock, and, where the kernel can say a
// member forked or exited (macOS's kqueue), on that too. Its goroutine
// starts with the first tracker and is stopped and waited for when the
// last one leaves.
type scanLoop struct {
	every time.Duration
	list  func() ([]Proc, error)
	// newWaker (nil: the clock alone) makes the loop's waker.
	newWaker func() (waker, error)

	mu       sync.Mutex
	trackers map[*Tracker]bool // guarded by mu
	stop     chan struct{}     // guarded by mu; nil: not running
	done     chan struct{}     // guarded by mu
	w        waker             // guarded by mu; the running loop's, or nil
}

// waker blocks the loop until a member forks or exits.
type waker interface {
	// wait watches members (adding those it does not watch yet) and
	// returns when one of them forks or exits, d has passed, or wake was
	// called.
	wait(members []Proc, d time.Duration)
	// wake ends a wait now, or the next one at once; any goroutine.
	wake()
	// close releases it, once the loop's goroutine has ended.
	close()
}

func newScanLoop(every time.Duration, list func() ([]Proc, error), newWaker func() (waker, error)) *scanLoop {
	return &scanLoop{every: every, list: list, newWaker: newWaker, trackers: map[*Tracker]bool{}}
}

func (l *scanLoop) add(t *Tracker) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trackers[t] = true
	if l.stop == nil {
		l.stop, l.done = make(chan struct{}), make(chan struct{})
		l.w = nil
		if l.newWaker != nil {
			// Without one (out of descriptors) the clock still runs.
			l.w, _ = l.newWaker()
		}
		go l.run(l.stop, l.done, l.w)
	}
}

func (l *scanLoop) remove(t *Tracker) {
	l.mu.Lock()
	delete(l.trackers, t)
	var stop, done chan struct{}
	var w waker
	if len(l.trackers) == 0 && l.stop != nil {
		stop, done, w = l.stop, l.done, l.w
		l.stop, l.done, l.w = nil, nil, nil
	}
	l.mu.Unlock()
	if stop != nil {
		close(stop)
		if w != nil {
			w.wake()
		}
		<-done
		if w != nil {
			w.close()
		}
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

func (l *scanLoop) run(stop, done chan struct{}, w waker) {
	defer close(done)
	var tick *time.Ticker
	if w == nil {
		tick = time.NewTicker(l.every)
		defer tick.Stop()
	}
	for {
		if w != nil {
			var members []Proc
			for _, t := range l.open() {
				members = append(members, t.Members()...)
			}
			w.wait(members, l.every)
			select {
			case <-stop:
				return
			default:
			}
		} else {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
		procs, err := l.list()
		if err != nil {
			continue // the next round tries again
		}
		for _, t := range l.open() {
			t.update(procs)
		}
	}
}
