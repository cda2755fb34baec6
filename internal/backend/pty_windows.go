package backend

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/windows"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/ttymode"
)

// ptyProcess runs a program on a ConPTY, Windows' pseudo console: the
// program sees a console, and what it draws arrives as VT sequences on
// one output pipe.
//
// Written on x/sys/windows rather than github.com/charmbracelet/x/conpty
// (v0.2.0) or x/xpty: their Spawn closes the new thread's handle and lets
// the program run at once, so it cannot join its job before it starts
// children (see spawn_windows.go), and their pipes are anonymous, hence
// synchronous: a pending ReadFile cannot be woken by Close. What is left
// to share is CreatePseudoConsole and three calls around it.
type ptyProcess struct {
	winTree
	in, out *os.File // agentty's overlapped ends of the console's pipes
	pump    *pump

	cmu        sync.Mutex     // guards console, rows, cols
	console    windows.Handle // 0 once closed
	rows, cols int

	wmu       sync.Mutex    // serializes writes
	closing   chan struct{} // closed by Close
	conClosed chan struct{} // closed once the console is
}

// StartPTY starts spec on a new pseudo console.
func StartPTY(spec Spec, _ func(func()), sink Sink) (Process, error) {
	if err := refuseContain(spec); err != nil {
		return nil, err
	}
	in, inR, err := pipePair(false, false)
	if err != nil {
		return nil, err
	}
	out, outW, err := pipePair(true, false)
	if err != nil {
		in.Close()
		windows.CloseHandle(inR)
		return nil, err
	}
	var console windows.Handle
	err = windows.CreatePseudoConsole(coord(spec.Rows, spec.Cols), inR, outW, 0, &console)
	// The console holds its own copies of its ends.
	windows.CloseHandle(inR)
	windows.CloseHandle(outW)
	if err != nil {
		closeAll(in, out)
		return nil, fmt.Errorf("create pseudo console: %w", err)
	}
	p := &ptyProcess{in: in, out: out, console: console, rows: spec.Rows, cols: spec.Cols,
		closing: make(chan struct{}), conClosed: make(chan struct{})}
	// Ctrl+C is what a console's keyboard sends: the console raises
	// CTRL_C_EVENT unless the program turned processed input off, as a
	// terminal's line discipline would for SIGINT.
	p.ctrlC = func() error {
		_, err := p.Write([]byte{0x03}, time.Now().Add(ctrlTimeout))
		return err
	}
	if err := p.start(spec, spawnIO{console: console}); err != nil {
		// Our ends first: a console closed while nobody reads its output
		// would wait for a reader (before Windows 11 24H2).
		closeAll(in, out)
		windows.ClosePseudoConsole(console)
		return nil, err
	}
	p.pump = newPump(out, outlog.Stdout, sink)
	go p.pump.run()
	go p.closeConsoleWhenEmpty()
	return p, nil
}

func coord(rows, cols int) windows.Coord {
	return windows.Coord{X: int16(cols), Y: int16(rows)}
}

// closeConsoleWhenEmpty closes the console once no process is attached to
// it: the console keeps its output pipe open for as long as it exists, so
// only then does the pump reach end of file (Drained), as a Linux PTY's
// master does once every slave is closed. Owned by the process; Close
// stops it.
func (p *ptyProcess) closeConsoleWhenEmpty() {
	defer close(p.conClosed)
	select {
	case <-p.empty:
	case <-p.closing:
	}
	p.closeConsole()
}

// closeConsole closes the pseudo console. Before Windows 11 24H2
// ClosePseudoConsole waits until its output is read, so the pump must
// still run.
func (p *ptyProcess) closeConsole() {
	p.cmu.Lock()
	c := p.console
	p.console = 0
	p.cmu.Unlock()
	if c != 0 {
		windows.ClosePseudoConsole(c)
	}
}

var _ Process = (*ptyProcess)(nil)

func (p *ptyProcess) Kind() string { return "pty" }

func (p *ptyProcess) Write(b []byte, deadline time.Time) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.in.SetWriteDeadline(deadline); err != nil {
		return 0, err
	}
	return p.in.Write(b)
}

func (p *ptyProcess) CloseStdin() error { return ErrNotPTY }

// Termios: a Windows console has modes of its own, which only its
// attached processes can read.
func (p *ptyProcess) Termios() (ttymode.Modes, error) { return ttymode.Modes{}, ErrNoTermios }

// InputWaits: input sits in the console's buffers unseen, so waits after
// input are gated; there is no verdict to gate, waits settle.
func (p *ptyProcess) InputWaits() InputWaits { return InputWaits{Gated: true} }

func (p *ptyProcess) Resize(rows, cols int) error {
	p.cmu.Lock()
	defer p.cmu.Unlock()
	if p.console == 0 {
		return errors.New("resize: the pseudo console is closed")
	}
	if err := windows.ResizePseudoConsole(p.console, coord(rows, cols)); err != nil {
		return fmt.Errorf("resize pseudo console: %w", err)
	}
	p.rows, p.cols = rows, cols
	return nil
}

func (p *ptyProcess) Size() (int, int) {
	p.cmu.Lock()
	defer p.cmu.Unlock()
	return p.rows, p.cols
}

func (p *ptyProcess) Quiet() bool              { return p.pump.quiet() }
func (p *ptyProcess) Drained() <-chan struct{} { return p.pump.done }

func (p *ptyProcess) Wait() (Exit, error) {
	ex, err := p.waitRoot()
	p.pump.collect()
	return ex, err
}

// Close closes the console (while the pump still drains it), stops the
// pump, and releases the job, ending what is left of the tree.
func (p *ptyProcess) Close() error {
	p.closeOnce.Do(func() {
		close(p.closing)
		<-p.conClosed
		closeAll(p.in, p.out)
		<-p.pump.done
		p.release()
	})
	return nil
}
