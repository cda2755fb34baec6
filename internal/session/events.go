package session

// Events for watchers (MCP resource subscriptions): the Manager broadcasts
// that its list of sessions changed, and WatchEvents reports what happened in one
// session. Both are pull-free for the engine: a broadcast closes a channel
// and replaces it; Watch probes the kernel only while someone watches.

import (
	"context"
	"sync"
	"time"
)

// broadcast wakes every waiter at once by closing its channel; the next
// wait gets a new one. The zero value is ready.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{} // guarded by mu; nil until someone waits
}

func (b *broadcast) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

func (b *broadcast) notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
}

// Changed returns a channel closed at the next change of the list of
// sessions: one started, exited or was deleted.
func (m *Manager) Changed() <-chan struct{} { return m.changes.wait() }

// Watching is how many WatchEvents calls run now (tests check that watchers end).
func (m *Manager) Watching() int { return int(m.watching.Load()) }

// Events is a set of things that happened in a session.
type Events uint8

// Events WatchEvents reports.
const (
	EventOutput    Events = 1 << iota // new output
	EventAwaiting                     // the program started waiting for input
	EventListening                    // a socket not listening before is listening
	EventExited                       // the program exited (the last report)
)

// Names lists the events in e.
func (e Events) Names() []string {
	var out []string
	for _, n := range []struct {
		ev   Events
		name string
	}{{EventOutput, "output"}, {EventAwaiting, "awaiting_input"}, {EventListening, "listening"}, {EventExited, "exited"}} {
		if e&n.ev != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// WatchEvents bounds.
const (
	watchProbeMin = 20 * time.Millisecond // first probe after output
	watchProbeMax = time.Second           // back-off while nothing changes
)

// WatchEvents reports events of s to emit until ctx ends or the program exited
// (EventExited is the last report). Reports are coalesced: at most one per
// every, carrying every event since the last; the exit is reported at once.
// Whether the program waits for input or listens is asked of the kernel
// after output (programs print before they block or listen) and then ever
// more rarely, up to once a second; the first report is of what changes
// after WatchEvents began.
func (s *Session) WatchEvents(ctx context.Context, every time.Duration, emit func(Events)) {
	s.mgr.watching.Add(1)
	defer s.mgr.watching.Add(-1)
	end := s.log.Stats().End
	known := map[string]bool{}
	for _, x := range s.Listening() {
		known[x.Key()] = true
	}
	_, _, awaiting := s.AwaitingInput()
	var pending Events
	var lastEmit time.Time
	delay := watchProbeMin
	probeAt := time.Now().Add(delay)
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for {
		changed := s.log.Changed()
		now := time.Now()
		if e := s.log.Stats().End; e != end {
			end, pending = e, pending|EventOutput
			delay, probeAt = watchProbeMin, now.Add(watchProbeMin)
		}
		if isDone(s.done) {
			emit(pending | EventExited)
			return
		}
		if !now.Before(probeAt) {
			_, _, ok := s.AwaitingInput()
			if ok && !awaiting {
				pending |= EventAwaiting
			}
			awaiting = ok
			for _, x := range s.Listening() {
				if !known[x.Key()] {
					known[x.Key()] = true
					pending |= EventListening
				}
			}
			delay = min(delay*2, watchProbeMax)
			probeAt = now.Add(delay)
		}
		next := probeAt
		if pending != 0 {
			if at := lastEmit.Add(every); !now.Before(at) {
				emit(pending)
				pending, lastEmit = 0, now
			} else {
				next = earliest(next, at)
			}
		}
		timer.Reset(next.Sub(now))
		select {
		case <-changed:
		case <-s.done:
		case <-timer.C:
		case <-ctx.Done():
			return
		}
	}
}
