// Package backendtest is a scripted backend.Process for unit tests of the
// session engine: the test decides what the program prints, when it exits,
// whether it waits for input and what its input does, and no process runs.
package backendtest

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/ttymode"
)

// Options shape a scripted process.
type Options struct {
	PTY        bool   // Kind "pty" with a terminal size; else "pipe"
	Rows, Cols int    // the terminal size (PTY)
	Host       string // what Host reports; "" for a local process
	// Waits is what InputWaits reports.
	Waits backend.InputWaits
	// Termios, when set, is the terminal's modes; nil makes Termios fail
	// (ErrNotPTY for a pipe, ErrNoTermios for a PTY).
	Termios *ttymode.Modes
	// Flush is what FlushInput does (a local terminal taking in all input
	// written); nil makes FlushInput fail, as for a process that cannot.
	Flush func() error
}

// firstPID is above Linux's largest pid (PID_MAX_LIMIT, 2^22), so a
// scripted pid never names a real process.
const firstPID = 1 << 22

var nextPID atomic.Int64

// Process is a scripted backend.Process. Its methods are safe for
// concurrent use; the test drives it with Print, SetProbe, Exit and the
// rest, and reads back what the engine did with Input, Signals and
// Terminations.
type Process struct {
	opts Options
	sink backend.Sink
	pid  int

	exited  chan struct{} // closed by Exit
	drained chan struct{} // closed by EOF
	closed  chan struct{} // closed by Close
	naps    atomic.Int32  // Nap calls

	mu          sync.Mutex
	exit        backend.Exit                // guarded by mu; set before exited closes
	exitOnce    bool                        // guarded by mu
	eofOnce     bool                        // guarded by mu
	closeOnce   bool                        // guarded by mu
	probe       inputwait.Probe             // guarded by mu; what Inspect returns
	probed      chan struct{}               // guarded by mu; closed and replaced by each Inspect
	probeErr    error                       // guarded by mu
	probeFunc   func(n int) inputwait.Probe // guarded by mu; when set, Inspect's verdict (n counts calls)
	probes      int                         // guarded by mu; Inspect calls
	noisy       bool                        // guarded by mu; Quiet reports false
	stall       bool                        // guarded by mu; writes block until their deadline
	writeErr    error                       // guarded by mu; what writes fail with
	onWrite     func([]byte)                // guarded by mu; called with each write
	onResize    func(rows, cols int) error  // guarded by mu; called with each resize
	input       []byte                      // guarded by mu
	stdinClosed bool                        // guarded by mu
	signals     []syscall.Signal            // guarded by mu
	terminated  []time.Duration             // guarded by mu; the grace of each Terminate
	rows, cols  int                         // guarded by mu

	lmu       sync.Mutex
	listening []ports.Socket // guarded by lmu; what Listening returns
	listenErr error          // guarded by lmu
}

var _ backend.Process = (*Process)(nil)

// New returns a running scripted process whose output goes to sink.
func New(o Options, sink backend.Sink) *Process {
	p := &Process{opts: o, sink: sink, pid: firstPID + int(nextPID.Add(1)),
		exited: make(chan struct{}), drained: make(chan struct{}), closed: make(chan struct{}),
		probe: inputwait.Probe{State: inputwait.Running}, probed: make(chan struct{})}
	if o.PTY {
		p.rows, p.cols = o.Rows, o.Cols
	}
	return p
}

// Print makes the program write data to stdout.
func (p *Process) Print(data string) { p.Output(outlog.Stdout, data) }

// Output makes the program write data to stream s; nothing arrives after EOF.
func (p *Process) Output(s outlog.Stream, data string) {
	p.mu.Lock()
	eof := p.eofOnce
	p.mu.Unlock()
	if !eof {
		p.sink(s, []byte(data))
	}
}

// SetProbe sets what Inspect reports from now on.
func (p *Process) SetProbe(pr inputwait.Probe, err error) {
	p.mu.Lock()
	p.probe, p.probeErr = pr, err
	p.mu.Unlock()
}

// SetProbeFunc makes Inspect report f(n) from now on, n counting the
// calls from 1: a program whose scheduling counters move at every look.
func (p *Process) SetProbeFunc(f func(n int) inputwait.Probe) {
	p.mu.Lock()
	p.probeFunc, p.probes = f, 0
	p.mu.Unlock()
}

// Probed returns a channel closed at the next Inspect: a wait that probes
// has checked the output and the exit before, so what the test does after
// it reaches a wait already under way.
func (p *Process) Probed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.probed
}

// SetNoisy makes Quiet report false (output still in flight) or true.
func (p *Process) SetNoisy(noisy bool) {
	p.mu.Lock()
	p.noisy = noisy
	p.mu.Unlock()
}

// OnWrite calls f with every write the program takes (e.g. to echo it or
// answer). f runs on the writer's goroutine and may call Print.
func (p *Process) OnWrite(f func(b []byte)) {
	p.mu.Lock()
	p.onWrite = f
	p.mu.Unlock()
}

// Stall makes writes block until their deadline, as a program that does
// not read its input; err, when not nil, makes writes fail with it instead.
func (p *Process) Stall(stall bool, err error) {
	p.mu.Lock()
	p.stall, p.writeErr = stall, err
	p.mu.Unlock()
}

// Exit ends the root process with ex; Wait returns it. Output may still
// follow until EOF. Later calls change nothing.
func (p *Process) Exit(ex backend.Exit) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exitOnce {
		return
	}
	p.exitOnce, p.exit = true, ex
	close(p.exited)
}

// EOF ends the output: Drained closes. Later calls change nothing.
func (p *Process) EOF() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.eofOnce {
		p.eofOnce = true
		close(p.drained)
	}
}

// End is Exit with code followed by EOF: a program that printed everything
// and exited.
func (p *Process) End(code int) {
	p.Exit(backend.Exit{Code: code})
	p.EOF()
}

// Input is every byte the program took, in order.
func (p *Process) Input() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.input)
}

// StdinClosed reports whether CloseStdin was called.
func (p *Process) StdinClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdinClosed
}

// Signals lists the signals sent to the process group, in order.
func (p *Process) Signals() []syscall.Signal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]syscall.Signal(nil), p.signals...)
}

// Terminations lists the grace of every Terminate call, in order.
func (p *Process) Terminations() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Duration(nil), p.terminated...)
}

// Closed reports whether Close was called.
func (p *Process) Closed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closeOnce
}

// PID implements backend.Process.
func (p *Process) PID() int { return p.pid }

// Kind implements backend.Process.
func (p *Process) Kind() string {
	if p.opts.PTY {
		return "pty"
	}
	return "pipe"
}

// Host implements backend.Process.
func (p *Process) Host() string { return p.opts.Host }

// Write implements backend.Process: the input is recorded and handed to
// the OnWrite script, unless the script stalls or fails writes.
func (p *Process) Write(b []byte, deadline time.Time) (int, error) {
	p.mu.Lock()
	stall, werr, closed, f := p.stall, p.writeErr, p.stdinClosed, p.onWrite
	if !stall && werr == nil && !closed {
		p.input = append(p.input, b...)
	}
	p.mu.Unlock()
	switch {
	case closed:
		return 0, backend.ErrStdinClosed
	case werr != nil:
		return 0, werr
	case stall:
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		select {
		case <-t.C:
			return 0, os.ErrDeadlineExceeded
		case <-p.closed:
			return 0, syscall.EPIPE
		}
	}
	if f != nil {
		f(b)
	}
	return len(b), nil
}

// CloseStdin implements backend.Process.
func (p *Process) CloseStdin() error {
	if p.opts.PTY {
		return backend.ErrNotPTY
	}
	p.mu.Lock()
	p.stdinClosed = true
	p.mu.Unlock()
	return nil
}

// Resize implements backend.Process.
func (p *Process) Resize(rows, cols int) error {
	if !p.opts.PTY {
		return backend.ErrNotPTY
	}
	p.mu.Lock()
	f := p.onResize
	p.mu.Unlock()
	if f != nil {
		if err := f(rows, cols); err != nil {
			return err
		}
	}
	p.mu.Lock()
	p.rows, p.cols = rows, cols
	p.mu.Unlock()
	return nil
}

// OnResize calls f with every size change, before Resize returns: a
// program that redraws the moment SIGWINCH reaches it, before the engine
// has done anything after the resize. An error from f is the terminal
// refusing the size: Resize returns it and the size stays.
func (p *Process) OnResize(f func(rows, cols int) error) {
	p.mu.Lock()
	p.onResize = f
	p.mu.Unlock()
}

// Size implements backend.Process.
func (p *Process) Size() (int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rows, p.cols
}

// Inspect implements backend.Process with the scripted verdict; an exited
// program runs no more.
func (p *Process) Inspect() (inputwait.Probe, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.probed)
	p.probed = make(chan struct{})
	if p.exitOnce {
		return inputwait.Probe{State: inputwait.Running}, nil
	}
	if p.probeFunc != nil {
		p.probes++
		return p.probeFunc(p.probes), nil
	}
	return p.probe, p.probeErr
}

// Quiet implements backend.Process: true unless SetNoisy(true).
func (p *Process) Quiet() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.noisy
}

// Drained implements backend.Process.
func (p *Process) Drained() <-chan struct{} { return p.drained }

// OnExit: the fake is waited for in Wait, as a remote process is.
func (p *Process) OnExit(func()) error { return backend.ErrNoExitWatch }

// Wait implements backend.Process: it returns once Exit was called.
func (p *Process) Wait() (backend.Exit, error) {
	<-p.exited
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit, nil
}

// Close implements backend.Process; safe to call twice.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closeOnce {
		p.closeOnce = true
		close(p.closed)
	}
	return nil
}

// Signal implements backend.Process: the signal is recorded.
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	p.signals = append(p.signals, sig)
	p.mu.Unlock()
	return nil
}

// Terminate implements backend.Process: the grace is recorded and a
// program still running dies of SIGTERM (grace > 0) or SIGKILL, with its
// output ended, as a tree that does not resist.
func (p *Process) Terminate(ctx context.Context, grace time.Duration) error {
	p.mu.Lock()
	p.terminated = append(p.terminated, grace)
	p.mu.Unlock()
	sig := syscall.SIGKILL
	if grace > 0 {
		sig = syscall.SIGTERM
	}
	p.Exit(backend.Exit{Code: -1, Signal: sig})
	p.EOF()
	return nil
}

// Termios implements backend.Process with Options.Termios.
func (p *Process) Termios() (ttymode.Modes, error) {
	switch {
	case !p.opts.PTY:
		return ttymode.Modes{}, backend.ErrNotPTY
	case p.opts.Termios == nil:
		return ttymode.Modes{}, backend.ErrNoTermios
	}
	return *p.opts.Termios, nil
}

// InputWaits implements backend.Process with Options.Waits.
func (p *Process) InputWaits() backend.InputWaits { return p.opts.Waits }

// Containment reports process-tree tracking: a scripted process has no tree.
func (p *Process) Containment() contain.Report {
	return contain.Report{Kind: contain.KindProcessTree, Reason: "scripted test process"}
}
