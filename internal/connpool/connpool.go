// Package connpool keeps one live connection per key for the remote
// backends (SSH hosts, agentty nodes in containers): concurrent starts on
// one key share a single dial, a lost connection is replaced by the next
// caller, and Close hands back every connection for the owner to end.
package connpool

import (
	"errors"
	"maps"
	"slices"
	"sync"
)

// ErrClosed is returned by Get after Close.
var ErrClosed = errors.New("pool is closed")

// Pool holds connections of type C by key. Alive says whether a held
// connection can still be used; the zero value of C means "none".
type Pool[C comparable] struct {
	alive func(C) bool

	mu     sync.Mutex
	slots  map[string]*slot[C] // guarded by mu
	closed bool                // guarded by mu
}

// slot serializes dialing one key.
type slot[C comparable] struct {
	dial sync.Mutex // held while dialing
	conn C          // guarded by Pool.mu; the newest connection, maybe lost
}

// New returns an empty pool; alive reports whether a connection is usable.
func New[C comparable](alive func(C) bool) *Pool[C] {
	return &Pool[C]{alive: alive, slots: map[string]*slot[C]{}}
}

// Get returns key's live connection, or dials one (at most one dial per key
// at a time; others wait for it and share the result). A connection dialed
// while Close ran is handed to discard and ErrClosed is returned.
func (p *Pool[C]) Get(key string, dial func() (C, error), discard func(C)) (C, error) {
	var zero C
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return zero, ErrClosed
	}
	sl := p.slots[key]
	if sl == nil {
		sl = &slot[C]{}
		p.slots[key] = sl
	}
	p.mu.Unlock()

	sl.dial.Lock()
	defer sl.dial.Unlock()
	p.mu.Lock()
	c := sl.conn
	p.mu.Unlock()
	if c != zero && p.alive(c) {
		return c, nil
	}
	c, err := dial()
	if err != nil {
		return zero, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		discard(c)
		return zero, ErrClosed
	}
	sl.conn = c
	p.mu.Unlock()
	return c, nil
}

// All returns every connection held, live or lost, sorted by key.
func (p *Pool[C]) All() []C {
	var zero C
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []C
	for _, k := range slices.Sorted(maps.Keys(p.slots)) {
		if c := p.slots[k].conn; c != zero {
			out = append(out, c)
		}
	}
	return out
}

// Close marks the pool closed and returns the connections it held, for the
// caller to end; it returns nil when the pool was already closed.
func (p *Pool[C]) Close() []C {
	var zero C
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var out []C
	for _, sl := range p.slots {
		if sl.conn != zero {
			out = append(out, sl.conn)
		}
	}
	return out
}
