//go:build linux || darwin || windows

package backend

import (
	"fmt"
	"os"
	"time"

	"github.com/agentty/agentty/internal/ttymode"
)

// What a pipe session does the same way on every OS; starting one, its
// tree and why a write found no reader are per OS (pipe_unix.go,
// pipe_windows.go).

var _ Process = (*pipeProcess)(nil)

func (p *pipeProcess) Kind() string { return "pipe" }

// startPumps runs every pump; done closes when the last one ends.
func (p *pipeProcess) startPumps() {
	p.left.Store(int32(len(p.pumps)))
	for _, pu := range p.pumps {
		go func() {
			pu.run()
			if p.left.Add(-1) == 0 {
				close(p.done)
			}
		}()
	}
}

func (p *pipeProcess) Write(b []byte, deadline time.Time) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.inMu.RLock()
	f := p.stdin
	p.inMu.RUnlock()
	if f == nil {
		return 0, ErrStdinClosed
	}
	// Closing stdin concurrently makes this write fail instead of hang.
	if err := f.SetWriteDeadline(deadline); err != nil {
		return 0, err
	}
	n, err := f.Write(b)
	if err != nil && p.readerGone(err) {
		err = fmt.Errorf("%w: %w", ErrNoReader, err)
	}
	return n, err
}

func (p *pipeProcess) CloseStdin() error {
	p.inMu.Lock()
	f := p.stdin
	p.stdin = nil
	p.inMu.Unlock()
	if f == nil {
		return nil
	}
	return f.Close()
}

func (p *pipeProcess) Resize(int, int) error           { return ErrNotPTY }
func (p *pipeProcess) Size() (int, int)                { return 0, 0 }
func (p *pipeProcess) Termios() (ttymode.Modes, error) { return ttymode.Modes{}, ErrNotPTY }

func (p *pipeProcess) Quiet() bool {
	quiet := true
	for _, pu := range p.pumps {
		quiet = pu.quiet() && quiet // ask every pump: each may append what it finds
	}
	return quiet
}

func (p *pipeProcess) Drained() <-chan struct{} { return p.done }

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
