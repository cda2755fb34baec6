package nodebackend

import (
	"bufio"
	"io"
	"sync"
)

// outq is the node's outbound stream: every frame (output, replies,
// events) is queued in order and one writer goroutine sends them. A sink
// never blocks the program that writes: the queue takes the bytes whatever
// the stream's speed, as the local pumps do into their log.
type outq struct {
	mu     sync.Mutex
	frames [][]byte      // guarded by mu; encoded frames in send order
	wake   chan struct{} // buffered 1: frames were queued or the queue closed
	closed bool          // guarded by mu
	err    error         // guarded by mu; the first write error
	done   chan struct{} // closed when run returns
}

func newOutq() *outq {
	return &outq{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// put queues one frame; after close or a write error it is dropped.
func (q *outq) put(kind byte, parts ...[]byte) {
	n := 5
	for _, p := range parts {
		n += len(p)
	}
	f := make([]byte, 0, n)
	f = append(f, kind, byte((n-5)>>24), byte((n-5)>>16), byte((n-5)>>8), byte(n-5))
	for _, p := range parts {
		f = append(f, p...)
	}
	q.mu.Lock()
	if !q.closed && q.err == nil {
		q.frames = append(q.frames, f)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// msg queues a JSON message.
func (q *outq) msg(m *message) { q.put(kindMsg, mustJSON(m)) }

// run writes frames to w until close has been called and the queue is
// empty, or a write fails. The node's Serve owns it.
func (q *outq) run(w io.Writer) {
	defer close(q.done)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		q.mu.Lock()
		batch := q.frames
		q.frames = nil
		closed := q.closed
		q.mu.Unlock()
		for _, f := range batch {
			if _, err := bw.Write(f); err != nil {
				q.fail(err)
				return
			}
		}
		if err := bw.Flush(); err != nil {
			q.fail(err)
			return
		}
		if closed && len(batch) == 0 {
			return
		}
		if len(batch) == 0 {
			<-q.wake
		}
	}
}

func (q *outq) fail(err error) {
	q.mu.Lock()
	q.err = err
	q.frames = nil
	q.mu.Unlock()
}

// close lets run send what is queued and return; it waits for that.
func (q *outq) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	<-q.done
}
