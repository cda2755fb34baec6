//go:build linux || darwin

package backend

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/ttymode"
)

// pipeProcess runs a program with plain pipes: stdout and stderr stay apart
// (unless merged), stdin can be closed to signal end of input, and nothing is
// a terminal.
type pipeProcess struct {
	localTree
	cmd   *exec.Cmd
	pumps []*pump       // stdout, then stderr unless merged
	done  chan struct{} // closed when every pump finished
	left  atomic.Int32  // pumps still running

	wmu   sync.Mutex   // serializes writes
	inMu  sync.RWMutex // guards stdin; readers may use the descriptor
	stdin *os.File     // nil once closed

	closeOnce sync.Once
}

// StartPipe starts spec with pipes for stdin, stdout and stderr, in its own
// process group. With spec.MergeStderr the child's stderr is its stdout pipe,
// which keeps the exact order of the two at the cost of telling them apart.
func StartPipe(spec Spec, start func(func()), sink Sink) (Process, error) {
	var opened []*os.File
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		opened = append(opened, r, w)
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		closeAll(opened...)
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll(opened...)
		return nil, err
	}
	readers := []*os.File{outR}
	errW := outW
	if !spec.MergeStderr {
		var errR *os.File
		if errR, errW, err = pipe(); err != nil {
			closeAll(opened...)
			return nil, err
		}
		readers = append(readers, errR)
	}
	p := &pipeProcess{localTree: localTree{marker: spec.Marker}, stdin: inW, done: make(chan struct{})}
	p.cmd = &exec.Cmd{
		Path: spec.Path, Args: spec.Argv, Dir: spec.Dir, Env: spec.Env,
		Stdin: inR, Stdout: outW, Stderr: errW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	setDeathSignal(p.cmd.SysProcAttr)
	var k *kept
	p.box, k, err = startContained(p.cmd, spec, start)
	closeAll(inR, outW) // the child holds its ends now
	if errW != outW {
		errW.Close()
	}
	if err != nil {
		closeAll(append(readers, inW)...)
		return nil, err
	}
	p.setRoot(p.cmd, k)
	streams := []outlog.Stream{outlog.Stdout, outlog.Stderr}
	for i, f := range readers {
		pu, err := newPump(f, streams[i], sink, 0)
		if err != nil {
			closeAll(append(readers, inW)...)
			p.kill()
			return nil, err
		}
		pu.grow = true
		p.pumps = append(p.pumps, pu)
	}
	p.left.Store(int32(len(p.pumps)))
	for _, pu := range p.pumps {
		go func() {
			pu.run()
			if p.left.Add(-1) == 0 {
				close(p.done)
			}
		}()
	}
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

var _ Process = (*pipeProcess)(nil)

func (p *pipeProcess) Kind() string { return "pipe" }

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
	if errors.Is(err, syscall.EPIPE) && proctree.Running(p.pid) {
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

// InputWaits: the probe counts unread bytes in the stdin pipe, so its
// verdicts after input are never stale and need no gate.
func (p *pipeProcess) InputWaits() InputWaits { return InputWaits{ExactMarks: true} }

func (p *pipeProcess) Inspect() (inputwait.Probe, error) {
	p.inMu.RLock()
	defer p.inMu.RUnlock()
	return p.probe.Inspect(inputwait.Target{Root: p.PID(), Stdin: p.stdin})
}

func (p *pipeProcess) Quiet() bool {
	quiet := true
	for _, pu := range p.pumps {
		quiet = pu.quiet() && quiet // ask every pump: each may append what it finds
	}
	return quiet
}

func (p *pipeProcess) Drained() <-chan struct{} { return p.done }

func (p *pipeProcess) Wait() (Exit, error) {
	var ru rootUsage
	ex, err := p.waitRoot(&ru)
	p.probe.Close()
	p.box.noteExit(ex, ru)
	for _, pu := range p.pumps {
		pu.collect()
	}
	return ex, err
}

func (p *pipeProcess) Close() error {
	p.closeOnce.Do(func() {
		_ = p.CloseStdin()
		p.probe.Close()
		for _, pu := range p.pumps {
			pu.f.Close()
		}
		<-p.done
		p.box.release()
		p.untrack()
	})
	return nil
}
