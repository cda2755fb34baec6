package nodebackend

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/ttymode"
)

// callTimeout bounds a request the node answers at once (everything but
// write, terminate and exec, which carry their own bounds).
const callTimeout = 30 * time.Second

// process is a program a node runs, seen from here. The conn's reader
// feeds its output, exit and end of output; requests go over the conn.
type process struct {
	c       *conn
	id      uint32 // the node's process id
	pid     int    // pid inside the target
	session string
	pty     bool
	sink    backend.Sink

	frames atomic.Int64 // output frames received, for Quiet

	size *backend.WinSize // the size Resize last set

	exitOnce  sync.Once
	exit      backend.Exit  // set before exitC closes
	exitC     chan struct{} // closed when the root's exit arrived (or the node was lost)
	drainOnce sync.Once
	drained   chan struct{} // closed when the node's pumps reached end of file
	closeOnce sync.Once
}

// start asks the node to run spec.
func (c *conn) start(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error) {
	p := &process{c: c, session: spec.SessionID, pty: spec.PTY, sink: sink, size: backend.NewWinSize(spec.Rows, spec.Cols),
		exitC: make(chan struct{}), drained: make(chan struct{})}
	// The process is registered before its output can arrive: the reply
	// and the first output frame may come back to back.
	c.mu.Lock()
	if c.lost != "" {
		c.mu.Unlock()
		return nil, errors.Join(ErrLost, errors.New(c.host+": "+c.lostReason()))
	}
	c.mu.Unlock()
	m, err := c.callStart(spec, p)
	if err != nil {
		return nil, err
	}
	_ = m // the reader recorded the node's id and pid (conn.handle)
	return p, nil
}

// callStart sends the start request and registers p under the id of the
// reply inside the reader goroutine's dispatch, before any output for it
// is read.
func (c *conn) callStart(spec backend.RemoteSpec, p *process) (message, error) {
	ch := make(chan message, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.starting[id] = p
	c.mu.Unlock()
	q := request{ID: id, Op: opStart, Start: &spec}
	if err := c.send(q); err != nil {
		c.dropStart(id)
		return message{}, errors.Join(ErrLost, err)
	}
	select {
	case m := <-ch:
		return m, replyErr(&m)
	case <-c.dead:
		c.dropStart(id)
		return message{}, errors.Join(ErrLost, errors.New(c.host+": "+c.lostReason()))
	case <-time.After(callTimeout):
		c.dropStart(id)
		return message{}, errors.New("the agentty node in " + c.host + " did not start the program in time")
	}
}

func (p *process) output(s outlog.Stream, b []byte) {
	p.frames.Add(1)
	p.sink(s, b)
}

func (p *process) exited(e backend.Exit) {
	p.exitOnce.Do(func() {
		p.exit = e
		close(p.exitC)
	})
}

func (p *process) drain() { p.drainOnce.Do(func() { close(p.drained) }) }

func (p *process) call(q request, timeout time.Duration) (message, error) {
	q.Proc = p.id
	return p.c.call(q, timeout)
}

func (p *process) PID() int { return p.pid }

func (p *process) Kind() string {
	if p.pty {
		return "pty"
	}
	return "pipe"
}

func (p *process) Host() string { return p.c.host }

func (p *process) Write(b []byte, deadline time.Time) (int, error) {
	d := time.Until(deadline)
	if d < 0 {
		d = 0
	}
	m, err := p.call(request{Op: opWrite, Data: b, Timeout: int64(d)}, d+callTimeout)
	return m.N, err
}

func (p *process) CloseStdin() error {
	if p.pty {
		return backend.ErrNotPTY
	}
	_, err := p.call(request{Op: opCloseIn}, callTimeout)
	return err
}

func (p *process) Resize(rows, cols int) error {
	if !p.pty {
		return backend.ErrNotPTY
	}
	if _, err := p.call(request{Op: opResize, Rows: rows, Cols: cols}, callTimeout); err != nil {
		return err
	}
	p.size.Set(rows, cols)
	return nil
}

func (p *process) Size() (int, int) {
	if !p.pty {
		return 0, 0
	}
	return p.size.Get()
}

func (p *process) Inspect() (inputwait.Probe, error) {
	m, err := p.call(request{Op: opInspect}, callTimeout)
	if m.Probe == nil {
		return inputwait.Probe{}, err
	}
	return *m.Probe, err
}

// Quiet asks the node; output frames that arrived while asking were in
// flight, so the answer is then false.
func (p *process) Quiet() bool {
	before := p.frames.Load()
	m, err := p.call(request{Op: opQuiet}, callTimeout)
	return err == nil && m.Quiet && p.frames.Load() == before
}

func (p *process) Drained() <-chan struct{} { return p.drained }

// OnExit: the exit is known from the connection, in Wait.
func (p *process) OnExit(func()) error { return backend.ErrNoExitWatch }

func (p *process) Wait() (backend.Exit, error) {
	<-p.exitC
	return p.exit, nil
}

// Close tells the node to release the program's descriptors; the program
// itself is the session's to terminate.
func (p *process) Close() error {
	p.closeOnce.Do(func() {
		p.c.mu.Lock()
		delete(p.c.procs, p.id)
		p.c.mu.Unlock()
		if p.c.alive() {
			_ = p.c.send(request{Op: opClose, Proc: p.id})
		}
		p.exited(backend.Exit{Code: -1, Lost: "closed"})
		p.drain()
	})
	return nil
}

func (p *process) Signal(sig syscall.Signal) error {
	_, err := p.call(request{Op: opSignal, Signal: int(sig)}, callTimeout)
	if errors.Is(err, ErrLost) {
		return nil // the container's processes are beyond reach, or gone with it
	}
	return err
}

func (p *process) Terminate(ctx context.Context, grace time.Duration) error {
	type res struct{ err error }
	ch := make(chan res, 1)
	go func() {
		_, err := p.call(request{Op: opTerminate, Grace: int64(grace)}, grace+callTimeout)
		ch <- res{err}
	}()
	select {
	case r := <-ch:
		if errors.Is(r.err, ErrLost) {
			return nil
		}
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *process) Termios() (ttymode.Modes, error) {
	if !p.pty {
		return ttymode.Modes{}, backend.ErrNotPTY
	}
	m, err := p.call(request{Op: opTermios}, callTimeout)
	if m.Modes == nil {
		return ttymode.Modes{}, err
	}
	return *m.Modes, err
}

// InputWaits: the node's verdicts are the kernel's, as locally; Quiet is a
// round trip, so marks take the log as it stands.
func (p *process) InputWaits() backend.InputWaits {
	return backend.InputWaits{Gated: p.pty}
}
