package backend

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
)

// pipeProcess runs a program with plain pipes: stdout and stderr stay apart,
// stdin can be closed to signal end of input, and nothing is a terminal.
type pipeProcess struct {
	cmd   *exec.Cmd
	pid   int // cmd.Process.Pid, kept: Release clears it
	pumps [2]*pump
	done  chan struct{} // closed when both pumps finished

	wmu   sync.Mutex   // serializes writes
	inMu  sync.RWMutex // guards stdin; readers may use the descriptor
	stdin *os.File     // nil once closed

	closeOnce sync.Once
}

// StartPipe starts spec with pipes for stdin, stdout and stderr, in its own
// process group.
func StartPipe(spec Spec, start func(func()), sink Sink) (Process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	p := &pipeProcess{stdin: inW, done: make(chan struct{})}
	p.cmd = &exec.Cmd{
		Path: spec.Path, Args: spec.Argv, Dir: spec.Dir, Env: spec.Env,
		Stdin: inR, Stdout: outW, Stderr: errW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	start(func() { err = p.cmd.Start() })
	closeAll(inR, outW, errW) // the child holds its ends now
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	p.pid = p.cmd.Process.Pid
	for i, f := range []*os.File{outR, errR} {
		s := []outlog.Stream{outlog.Stdout, outlog.Stderr}[i]
		if p.pumps[i], err = newPump(f, s, sink); err != nil {
			closeAll(inW, outR, errR)
			_ = p.cmd.Process.Kill()
			_, _ = p.cmd.Process.Wait()
			return nil, err
		}
	}
	go p.pumps[0].run()
	go p.pumps[1].run()
	go func() {
		<-p.pumps[0].done
		<-p.pumps[1].done
		close(p.done)
	}()
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

func (p *pipeProcess) PID() int     { return p.pid }
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
	return f.Write(b)
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

func (p *pipeProcess) Resize(int, int) error { return ErrNotPTY }
func (p *pipeProcess) Size() (int, int)      { return 0, 0 }

func (p *pipeProcess) Inspect() (inputwait.Probe, error) {
	p.inMu.RLock()
	defer p.inMu.RUnlock()
	return inputwait.Inspect(inputwait.Target{Root: p.PID(), Stdin: p.stdin})
}

func (p *pipeProcess) Quiet() bool { return p.pumps[0].quiet() && p.pumps[1].quiet() }

func (p *pipeProcess) Drained() <-chan struct{} { return p.done }

func (p *pipeProcess) Wait() (Exit, error) { return waitExit(p.cmd.Process) }

func (p *pipeProcess) Close() error {
	p.closeOnce.Do(func() {
		_ = p.CloseStdin()
		p.pumps[0].f.Close()
		p.pumps[1].f.Close()
		<-p.done
	})
	return nil
}
