package stdio

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Limits bound what one connection can make the server hold. The SDK
// dispatches every request at once and each handler keeps its encoded
// reply until the writer takes it, so a client that sends and never reads
// would otherwise grow the server without end (4.7 GB in 30 s).
type Limits struct {
	// Calls bounds the requests handed to the server and not answered yet
	// (0: DefaultCalls); more wait in the read-ahead queue.
	Calls int
	// Queued bounds the requests read ahead while Calls are in flight, in
	// number and in line bytes (0: DefaultQueued, DefaultQueuedBytes); at
	// either, reading stops until a call ends. Responses and notifications
	// read meanwhile go to the server at once, so an elicitation's answer
	// or a cancellation still flows while calls wait.
	Queued, QueuedBytes int
	// Pending bounds the reply bytes encoded and not yet written
	// (0: DefaultPending); while over it no waiting request is handed on.
	Pending int
	// Stall is how long a connection at the Calls or Pending cap may go
	// without its writer moving a byte before it is closed (0:
	// DefaultStall).
	Stall time.Duration
}

// The defaults: 16 calls cover a client's parallel waits; 16 MiB holds
// one MaxReply (9 MiB) reply and more.
const (
	DefaultCalls       = 16
	DefaultQueued      = 32
	DefaultQueuedBytes = 4 << 20
	DefaultPending     = 16 << 20
	DefaultStall       = 10 * time.Second
)

func (l Limits) withDefaults() Limits {
	if l.Calls <= 0 {
		l.Calls = DefaultCalls
	}
	if l.Queued <= 0 {
		l.Queued = DefaultQueued
	}
	if l.QueuedBytes <= 0 {
		l.QueuedBytes = DefaultQueuedBytes
	}
	if l.Pending <= 0 {
		l.Pending = DefaultPending
	}
	if l.Stall <= 0 {
		l.Stall = DefaultStall
	}
	return l
}

// queued is a request read ahead, or the end of input (req nil), which
// follows the requests read before it.
type queued struct {
	req   *jsonrpc.Request
	bytes int
	err   error
}

// flow is a connection's account of calls in flight, requests read ahead
// and reply bytes waiting. Every change closes changed and makes a new one.
type flow struct {
	lim Limits

	mu          sync.Mutex
	calls       map[jsonrpc.ID]struct{} // handed on, not answered
	queue       []queued
	queuedBytes int
	pending     int       // reply bytes encoded, not yet written
	moved       time.Time // last write progress, or when pending left 0
	changed     chan struct{}
}

func newFlow(lim Limits) *flow {
	return &flow{lim: lim.withDefaults(), calls: map[jsonrpc.ID]struct{}{}, changed: make(chan struct{})}
}

// broadcast wakes every waiter; f.mu is held.
func (f *flow) broadcast() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// known reports whether id is in flight or queued; f.mu is held.
func (f *flow) known(id jsonrpc.ID) bool {
	if _, ok := f.calls[id]; ok {
		return true
	}
	for _, q := range f.queue {
		if q.req != nil && q.req.ID == id {
			return true
		}
	}
	return false
}

// push queues a request (or the end of input) once there is room. It
// returns false if the id is already in use (the caller answers it), or
// when done closes first.
func (f *flow) push(q queued, done <-chan struct{}) (accepted bool, closed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if q.req != nil && f.known(q.req.ID) {
		return false, false
	}
	for q.req != nil && len(f.queue) > 0 && (len(f.queue) >= f.lim.Queued || f.queuedBytes+q.bytes > f.lim.QueuedBytes) {
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-done:
			f.mu.Lock()
			return false, true
		}
		f.mu.Lock()
	}
	f.queue = append(f.queue, q)
	f.queuedBytes += q.bytes
	f.broadcast()
	return true, false
}

// drop removes a queued request the client cancelled before it was
// handed on; it is never run, and per the protocol not answered.
func (f *flow) drop(id jsonrpc.ID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, q := range f.queue {
		if q.req != nil && q.req.ID == id {
			f.queue = append(f.queue[:i], f.queue[i+1:]...)
			f.queuedBytes -= q.bytes
			f.broadcast()
			return true
		}
	}
	return false
}

// next waits for the head of the queue and, for a request, a free call
// under the reply-bytes cap; it takes the call. ok is false once done
// closes.
func (f *flow) next(done <-chan struct{}) (q queued, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.queue) == 0 || f.queue[0].req != nil && !f.open() {
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-done:
			f.mu.Lock()
			return queued{}, false
		}
		f.mu.Lock()
	}
	q = f.queue[0]
	f.queue = f.queue[1:]
	f.queuedBytes -= q.bytes
	if q.req != nil {
		f.calls[q.req.ID] = struct{}{}
	}
	f.broadcast()
	return q, true
}

// open reports whether another call may start; f.mu is held.
func (f *flow) open() bool { return len(f.calls) < f.lim.Calls && f.pending < f.lim.Pending }

// answered ends the call id (its response was written or failed).
func (f *flow) answered(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.calls[id]; ok {
		delete(f.calls, id)
		f.broadcast()
	}
}

// wait adds n reply bytes to those waiting for the writer.
func (f *flow) wait(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending == 0 {
		f.moved = time.Now() // the stall clock starts with the first waiting byte
	}
	f.pending += n
}

// wrote records n bytes written out of those waiting.
func (f *flow) wrote(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending -= n
	f.moved = time.Now()
	f.broadcast()
}

// stalled reports a connection at a cap whose writer has moved nothing
// for lim.Stall, with what it holds.
func (f *flow) stalled(now time.Time) (stuck bool, calls, queued, pending int, since time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	since = now.Sub(f.moved)
	stuck = f.pending > 0 && !f.open() && since >= f.lim.Stall
	return stuck, len(f.calls), len(f.queue), f.pending, since
}

// cancelledID is the requestId of a notifications/cancelled, if msg is one.
func cancelledID(msg jsonrpc.Message) (jsonrpc.ID, bool) {
	r, ok := msg.(*jsonrpc.Request)
	if !ok || r.ID.IsValid() || r.Method != "notifications/cancelled" {
		return jsonrpc.ID{}, false
	}
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(r.Params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil
}

// watch closes the connection once it has stalled at a cap, and returns
// when the connection closes.
func (c *conn) watch() {
	defer close(c.watched)
	t := time.NewTicker(c.flow.lim.Stall / 4)
	defer t.Stop()
	for {
		select {
		case <-c.closed:
			return
		case now := <-t.C:
			stuck, calls, queued, pending, since := c.flow.stalled(now)
			if !stuck {
				continue
			}
			c.log.Warn("client is not reading its replies: disconnected", "calls_in_flight", calls,
				"requests_waiting", queued, "reply_bytes_waiting", pending, "stalled", since.Round(time.Millisecond))
			c.disconnect()
			return
		}
	}
}

// dispatch hands queued requests to Read in order, each once a call is
// free, and the end of input after them.
func (c *conn) dispatch() {
	defer close(c.dispatched)
	for {
		q, ok := c.flow.next(c.closed)
		if !ok {
			return
		}
		if q.req == nil {
			c.deliver(msgOrErr{err: q.err})
			return
		}
		if !c.deliver(msgOrErr{msg: q.req}) {
			return
		}
	}
}
