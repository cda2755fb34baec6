package nodebackend

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/outlog"
)

// ErrLost is returned by calls on a node whose stream ended.
var ErrLost = errors.New("node connection lost")

// Stream is a node's stdin and stdout as an engine's exec carries them.
type Stream interface {
	io.ReadWriteCloser
	// Stderr is what the node wrote to its stderr so far (bounded): the
	// reason a node that could not start gives.
	Stderr() string
	// Why explains the end of the stream from the engine's view, e.g.
	// "container web exited (code 137)"; "" when it knows nothing more.
	Why() string
}

// conn is the local end of one node. Its reader goroutine owns the
// stream's read side; Close or the stream's end stops it.
type conn struct {
	host   string // "docker://web"
	stream Stream
	hello  message
	since  time.Time

	closing atomic.Bool // set by close: the stream's end is ours, not the engine's news

	wmu sync.Mutex // serializes frames onto the stream
	bw  *bufio.Writer

	mu      sync.Mutex
	nextID  uint64                  // guarded by mu
	pending map[uint64]chan message // guarded by mu; buffered 1 each
	procs   map[uint32]*process     // guarded by mu
	// starting are processes whose start reply is awaited, by request id:
	// the reader registers one in procs as it reads the reply, before any
	// output for it.
	starting map[uint64]*process // guarded by mu
	lost     string              // guarded by mu; why the stream ended, once it did
	lostAt   time.Time           // guarded by mu
	dead     chan struct{}       // closed when the stream ended
	done     chan struct{}       // closed when the reader returns
}

// newConn takes over s and waits for the node's hello.
func newConn(host string, s Stream, timeout time.Duration) (*conn, error) {
	c := &conn{host: host, stream: s, since: time.Now(), bw: bufio.NewWriterSize(s, 64<<10),
		pending: map[uint64]chan message{}, procs: map[uint32]*process{}, starting: map[uint64]*process{},
		dead: make(chan struct{}), done: make(chan struct{})}
	hello := make(chan message, 1)
	c.pending[0] = hello
	go c.read()
	select {
	case m := <-hello:
		if m.Ev != evHello || m.Version != protoVersion {
			c.close("protocol mismatch")
			return nil, fmt.Errorf("the agentty node in %s speaks protocol %d, this agentty %d: use the same agentty version on both sides", host, m.Version, protoVersion)
		}
		c.hello = m
		return c, nil
	case <-c.dead:
		c.close("")
		return nil, fmt.Errorf("agentty node in %s did not start: %s", host, c.lostReason())
	case <-time.After(timeout):
		c.close("no hello")
		return nil, fmt.Errorf("agentty node in %s did not answer within %v: %s", host, timeout, s.Stderr())
	}
}

// read dispatches frames until the stream ends; then every process of the
// node ends as lost.
func (c *conn) read() {
	defer close(c.done)
	r := bufio.NewReaderSize(c.stream, 64<<10)
	var buf []byte
	var err error
	for {
		var kind byte
		var p []byte
		kind, p, err = readFrame(r, &buf)
		if err != nil {
			break
		}
		if kind == kindOut {
			if len(p) < 5 {
				err = errors.New("node protocol: short output frame")
				break
			}
			id := binary.BigEndian.Uint32(p[:4])
			c.mu.Lock()
			pr := c.procs[id]
			c.mu.Unlock()
			if pr != nil {
				pr.output(outlog.Stream(p[4]), p[5:])
			}
			continue
		}
		var m message
		if err = json.Unmarshal(p, &m); err != nil {
			break
		}
		c.handle(m)
	}
	reason := ""
	if c.closing.Load() {
		reason = "closed by agentty"
	} else {
		reason = c.stream.Why()
	}
	if reason == "" {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			reason = "the node's stream ended"
		} else {
			reason = err.Error()
		}
	}
	if se := c.stream.Stderr(); se != "" {
		reason += ": " + se
	}
	c.setLost(reason)
}

func (c *conn) handle(m message) {
	switch m.Ev {
	case evHello:
		m.Re = 0
	case evExit, evDrained:
		c.mu.Lock()
		pr := c.procs[m.Proc]
		c.mu.Unlock()
		if pr != nil {
			if m.Ev == evExit {
				pr.exited(*m.Exit)
			} else {
				pr.drain()
			}
		}
		return
	}
	c.mu.Lock()
	ch := c.pending[m.Re]
	delete(c.pending, m.Re)
	if p := c.starting[m.Re]; p != nil {
		delete(c.starting, m.Re)
		if m.Err == "" {
			p.id, p.pid = m.Proc, m.PID
			c.procs[m.Proc] = p
		}
	}
	c.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// setLost records why the stream ended and ends every process as lost.
func (c *conn) setLost(reason string) {
	c.mu.Lock()
	if c.lost != "" {
		c.mu.Unlock()
		return
	}
	c.lost, c.lostAt = reason, time.Now()
	procs := c.procs
	c.procs = map[uint32]*process{}
	close(c.dead)
	c.mu.Unlock()
	for _, p := range procs {
		p.exited(backend.Exit{Code: -1, Lost: reason})
		p.drain()
	}
}

func (c *conn) lostReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

func (c *conn) alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// call sends q and waits for its reply, the stream's end, or timeout (0:
// none).
func (c *conn) call(q request, timeout time.Duration) (message, error) {
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.lost != "" {
		c.mu.Unlock()
		return message{}, fmt.Errorf("%w: %s: %s", ErrLost, c.host, c.lostReason())
	}
	c.nextID++
	q.ID = c.nextID
	c.pending[q.ID] = ch
	c.mu.Unlock()
	if err := c.send(q); err != nil {
		c.drop(q.ID)
		return message{}, fmt.Errorf("%w: %s: %v", ErrLost, c.host, err)
	}
	var tc <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		tc = t.C
	}
	select {
	case m := <-ch:
		return m, replyErr(&m)
	case <-c.dead:
		c.drop(q.ID)
		return message{}, fmt.Errorf("%w: %s: %s", ErrLost, c.host, c.lostReason())
	case <-tc:
		c.drop(q.ID)
		return message{}, fmt.Errorf("the agentty node in %s did not answer %s within %v", c.host, q.Op, timeout)
	}
}

func (c *conn) drop(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// dropStart forgets a start that got no reply.
func (c *conn) dropStart(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	delete(c.starting, id)
	c.mu.Unlock()
}

// send writes one request frame.
func (c *conn) send(q request) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := writeFrame(c.bw, kindMsg, mustJSON(q)); err != nil {
		return err
	}
	return c.bw.Flush()
}

// close ends the stream (the node then ends its programs) and waits for
// the reader. Safe to call twice.
func (c *conn) close(reason string) {
	c.closing.Store(true)
	_ = c.stream.Close()
	<-c.done
	if reason != "" {
		c.setLost(reason)
	}
}

// sessions lists the ids of the sessions running on this node.
func (c *conn) sessions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.procs))
	for _, p := range c.procs {
		out = append(out, p.session)
	}
	return out
}
