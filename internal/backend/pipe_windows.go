package backend

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/agentty/agentty/internal/outlog"
)

// pipeProcess runs a program with plain pipes on Windows, in its own hidden
// console (CREATE_NO_WINDOW), where Ctrl+C and Ctrl+Break can reach it.
type pipeProcess struct {
	winTree
	pumps []*pump       // stdout, then stderr unless merged
	done  chan struct{} // closed when every pump finished
	left  atomic.Int32  // pumps still running

	wmu   sync.Mutex   // serializes writes
	inMu  sync.RWMutex // guards stdin
	stdin *os.File     // nil once closed
}

// StartPipe starts spec with pipes for stdin, stdout and stderr, in a job
// of its own. With spec.MergeStderr the child's stderr is its stdout pipe.
func StartPipe(spec Spec, _ func(func()), sink Sink) (Process, error) {
	if err := refuseContain(spec); err != nil {
		return nil, err
	}
	var ours []*os.File
	var far []windows.Handle
	defer func() {
		for _, h := range far {
			windows.CloseHandle(h) // the child holds its own now
		}
	}()
	fail := func(err error) (Process, error) {
		closeAll(ours...)
		return nil, err
	}
	pair := func(ourRead bool) (*os.File, windows.Handle, error) {
		f, h, err := pipePair(ourRead, true)
		if err == nil {
			ours, far = append(ours, f), append(far, h)
		}
		return f, h, err
	}
	inW, inR, err := pair(false)
	if err != nil {
		return fail(err)
	}
	outR, outW, err := pair(true)
	if err != nil {
		return fail(err)
	}
	readers, errW := []*os.File{outR}, outW
	if !spec.MergeStderr {
		var errR *os.File
		if errR, errW, err = pair(true); err != nil {
			return fail(err)
		}
		readers = append(readers, errR)
	}
	p := &pipeProcess{stdin: inW, done: make(chan struct{})}
	p.ctrlC = func() error { return p.ctrl(windows.CTRL_C_EVENT) }
	io := spawnIO{std: [3]windows.Handle{inR, outW, errW}, flags: windows.CREATE_NO_WINDOW}
	if err := p.start(spec, io); err != nil {
		return fail(err)
	}
	streams := []outlog.Stream{outlog.Stdout, outlog.Stderr}
	for i, f := range readers {
		p.pumps = append(p.pumps, newPump(f, streams[i], sink))
	}
	p.startPumps()
	return p, nil
}

// readerGone says whether a write failed because nothing reads the pipe
// any more while the program runs: ERROR_NO_DATA ("the pipe is being
// closed"), or ERROR_BROKEN_PIPE.
func (p *pipeProcess) readerGone(err error) bool {
	return (errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE) || errors.Is(err, syscall.EPIPE)) && !p.rootExited()
}

// rootExited reports whether the root has exited.
func (p *pipeProcess) rootExited() bool {
	ev, err := windows.WaitForSingleObject(p.proc, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

// InputWaits: no verdict on Windows (waits settle), and Quiet may miss a
// read in flight, so marks take the log as it stands.
func (p *pipeProcess) InputWaits() InputWaits { return InputWaits{} }

func (p *pipeProcess) Wait() (Exit, error) {
	ex, err := p.waitRoot()
	for _, pu := range p.pumps {
		pu.collect()
	}
	return ex, err
}

// Close stops the pumps, releases every handle, and so ends what is left
// of the tree (the job dies with its last handle).
func (p *pipeProcess) Close() error {
	p.closeOnce.Do(func() {
		_ = p.CloseStdin()
		for _, pu := range p.pumps {
			pu.f.Close()
		}
		<-p.done
		p.release()
	})
	return nil
}
