package sshbackend

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/sigs"
)

// pidTag starts the wrapper's first line, which carries the remote pid and
// never reaches the log.
const pidTag = "\x1eagentty-pid "

// process is a program running over one SSH channel of a Conn.
//
// Ownership: startProcess starts the pumps (one per stream; they end at the
// channel's EOF, which Close or the program's exit causes) and the writer
// (ends when closed is closed). Close waits for all of them.
type process struct {
	conn   *Conn
	sess   *ssh.Session
	stdin  io.WriteCloser
	id     string
	marker string
	pty    bool
	pid    int // remote root pid: leader of its own session and process group

	size *backend.WinSize // the size Resize last set

	appended  atomic.Int64 // chunks appended so far
	probeMark atomic.Int64 // appended when the last probe started

	mu        sync.Mutex
	lastProbe inputwait.Probe // guarded by mu; the last Inspect's answer, confirmed by Quiet

	drained chan struct{} // closed when every pump reached EOF
	pumps   sync.WaitGroup

	writes    chan writeReq
	closed    chan struct{} // closed by Close
	inMu      sync.Mutex
	stdinShut bool // guarded by inMu
	workers   sync.WaitGroup

	closeOnce sync.Once
}

type writeReq struct {
	p   []byte
	res chan writeRes // buffered 1
}

type writeRes struct {
	n   int
	err error
}

func startProcess(c *Conn, spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("nothing to run")
	}
	sess, err := c.newSession()
	if err != nil {
		hint := ""
		if strings.Contains(err.Error(), "administratively prohibited") {
			hint = fmt.Sprintf("; the server allows only so many sessions per connection (sshd MaxSessions, default 10; agentty uses one for its probe and has %d open): terminate idle sessions or raise MaxSessions", c.count())
		}
		return nil, fmt.Errorf("%w: open a channel on %s: %v%s", ErrConnect, c.target.Key(), err, hint)
	}
	p := &process{conn: c, sess: sess, id: spec.SessionID, marker: spec.Marker, pty: spec.PTY,
		size: backend.NewWinSize(spec.Rows, spec.Cols), drained: make(chan struct{}), writes: make(chan writeReq), closed: make(chan struct{})}
	fail := func(err error) (backend.Process, error) {
		sess.Close()
		return nil, err
	}
	if spec.PTY {
		term := spec.Env["TERM"]
		if term == "" {
			term = "xterm-256color"
		}
		modes := ssh.TerminalModes{ssh.ECHO: 1, ssh.TTY_OP_ISPEED: 38400, ssh.TTY_OP_OSPEED: 38400}
		if err := sess.RequestPty(term, spec.Rows, spec.Cols, modes); err != nil {
			return fail(fmt.Errorf("remote PTY on %s: %w", c.target.Key(), err))
		}
	}
	if p.stdin, err = sess.StdinPipe(); err != nil {
		return fail(err)
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	var stderr io.Reader
	if !spec.PTY {
		if stderr, err = sess.StderrPipe(); err != nil {
			return fail(err)
		}
	}
	if err := sess.Start(remoteCommand(spec)); err != nil {
		return fail(fmt.Errorf("start on %s: %w", c.target.Key(), err))
	}
	counted := func(s outlog.Stream, b []byte) {
		sink(s, b)
		p.appended.Add(1)
	}
	pidc := make(chan int, 1)
	var early bytes.Buffer // output before the pid line, kept for an error
	n := 1
	if stderr != nil {
		n = 2
	}
	p.pumps.Add(n)
	go func() {
		defer p.pumps.Done()
		p.pumpHeader(stdout, counted, pidc, &early)
	}()
	if stderr != nil {
		go func() {
			defer p.pumps.Done()
			pumpStream(stderr, outlog.Stderr, counted)
		}()
	}
	go func() {
		p.pumps.Wait()
		close(p.drained)
	}()
	t := time.NewTimer(c.pool.opts.DialTimeout)
	defer t.Stop()
	select {
	case pid, ok := <-pidc:
		if !ok {
			werr := sess.Wait()
			<-p.drained
			sess.Close()
			return nil, fmt.Errorf("remote command did not start on %s (%v): %s", c.target.Key(), werr, strings.TrimSpace(early.String()))
		}
		p.pid = pid
	case <-t.C:
		sess.Close()
		<-p.drained
		return nil, fmt.Errorf("%w: %s did not start the command within %v", ErrConnect, c.target.Key(), c.pool.opts.DialTimeout)
	}
	p.workers.Add(1)
	go func() {
		defer p.workers.Done()
		p.writer()
	}()
	c.add(p)
	return p, nil
}

// writer performs writes one at a time, so Write can give up at its
// deadline while a write the remote does not take stays in flight.
func (p *process) writer() {
	for {
		select {
		case <-p.closed:
			return
		case w := <-p.writes:
			n, err := p.stdin.Write(w.p)
			w.res <- writeRes{n, err}
		}
	}
}

func (p *process) PID() int { return p.pid }

func (p *process) Kind() string {
	if p.pty {
		return "pty"
	}
	return "pipe"
}

func (p *process) Write(b []byte, deadline time.Time) (int, error) {
	p.inMu.Lock()
	shut := p.stdinShut
	p.inMu.Unlock()
	if shut {
		return 0, backend.ErrStdinClosed
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	req := writeReq{p: bytes.Clone(b), res: make(chan writeRes, 1)}
	select {
	case p.writes <- req:
	case <-t.C:
		return 0, os.ErrDeadlineExceeded
	case <-p.closed:
		return 0, syscall.EPIPE
	}
	select {
	case r := <-req.res:
		if errors.Is(r.err, io.EOF) {
			r.err = syscall.EPIPE
		}
		return r.n, r.err
	case <-t.C:
		return 0, os.ErrDeadlineExceeded
	}
}

func (p *process) CloseStdin() error {
	if p.pty {
		return backend.ErrNotPTY
	}
	p.inMu.Lock()
	defer p.inMu.Unlock()
	if p.stdinShut {
		return nil
	}
	p.stdinShut = true
	return p.stdin.Close()
}

func (p *process) Resize(rows, cols int) error {
	if !p.pty {
		return backend.ErrNotPTY
	}
	if err := p.sess.WindowChange(rows, cols); err != nil {
		return fmt.Errorf("window-change on %s: %w", p.conn.target.Key(), err)
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

// Quiet confirms a probe's "awaiting input" over the network. The
// program's output and the probe's answer travel on different channels,
// and sshd may forward the answer first; so the verdict is asked again:
// if the program has not run since (same fingerprint) and nothing reached
// the log during both round trips, whatever it wrote before blocking had
// a full extra round trip through sshd to arrive, and has.
func (p *process) Quiet() bool {
	mark := p.probeMark.Load()
	if p.appended.Load() != mark {
		return false
	}
	p.mu.Lock()
	first := p.lastProbe
	p.mu.Unlock()
	h, err := p.conn.helperFor()
	if err != nil {
		return true // no probe ran: waits are decided by until/settle_ms
	}
	// The confirmation skips the terminal-mode check: the first probe
	// already told input from password, and the fingerprint shows whether
	// anything ran since.
	ans, err := h.request("F %d", p.pid)
	if err != nil {
		return false
	}
	again, err := parseProbe(ans)
	if err != nil || again.State == inputwait.Running || first.State == inputwait.Running || again.Fingerprint != first.Fingerprint {
		return false
	}
	return p.appended.Load() == mark
}

func (p *process) Drained() <-chan struct{} { return p.drained }

// OnExit: the exit is known from the connection, in Wait.
func (p *process) OnExit(func()) error { return backend.ErrNoExitWatch }

// Wait returns the exit status the server reports, or Lost when the
// connection ended first, once the pumps have appended everything the
// channel carried.
func (p *process) Wait() (backend.Exit, error) {
	err := p.sess.Wait()
	// sess.Wait returns when the channel closed (the server sends the
	// status before closing) or the connection ended. Either way both
	// streams are at end of file behind the data already received, which
	// may be megabytes the pumps have yet to append: the status waits for
	// them, and cannot wait long, since nothing more can arrive.
	<-p.drained
	var ee *ssh.ExitError
	switch {
	case err == nil:
		return backend.Exit{}, nil
	case errors.As(err, &ee):
		if name := ee.Signal(); name != "" {
			sig, _ := sigs.Parse(name)
			if sig == 0 {
				return backend.Exit{Code: -1}, fmt.Errorf("remote process killed by unknown signal %q", name)
			}
			return backend.Exit{Code: -1, Signal: sig}, nil
		}
		return backend.Exit{Code: ee.ExitStatus()}, nil
	}
	// No status: the channel or the whole connection went away.
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-p.conn.dead:
		return backend.Exit{Code: -1, Lost: p.conn.lostReason() + "; the remote program may still be running"}, nil
	case <-t.C:
		return backend.Exit{Code: -1, Lost: "the server closed the channel without an exit status (" + err.Error() + ")"}, nil
	}
}

func (p *process) Close() error {
	p.closeOnce.Do(func() {
		close(p.closed)
		p.sess.Close()
		p.conn.remove(p)
		p.workers.Wait()
		<-p.drained
	})
	return nil
}
