//go:build linux || darwin

package backend

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/proctree"
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
	p.startPumps()
	return p, nil
}

// readerGone says whether a write failed because nothing reads the pipe
// any more while the program runs (a reader that closed its stdin).
func (p *pipeProcess) readerGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) && proctree.Running(p.pid)
}

// InputWaits: the probe counts unread bytes in the stdin pipe, so its
// verdicts after input are never stale and need no gate.
func (p *pipeProcess) InputWaits() InputWaits { return InputWaits{ExactMarks: true} }

func (p *pipeProcess) Inspect() (inputwait.Probe, error) {
	p.inMu.RLock()
	defer p.inMu.RUnlock()
	return p.probe.Inspect(inputwait.Target{Root: p.PID(), Stdin: p.stdin})
}

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
