//go:build linux || darwin

package backend

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/ttymode"
)

// ptyProcess runs a program on a pseudo-terminal: it sees a real terminal
// (job control, line editing, colors), and everything it prints arrives on
// the master as one stream.
type ptyProcess struct {
	localTree
	cmd    *exec.Cmd
	master *os.File // pollable, non-blocking
	rc     syscall.RawConn
	rdev   uint64 // slave device number, for input-wait detection
	pump   *pump

	wmu        sync.Mutex // serializes writes
	smu        sync.Mutex // guards rows, cols
	rows, cols int

	closeOnce sync.Once
}

// StartPTY starts spec on a new pseudo-terminal. start runs the fork on the
// caller's dedicated thread (see proctree.Spawner).
func StartPTY(spec Spec, start func(func()), sink Sink) (Process, error) {
	m, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	defer tty.Close()
	// creack/pty's ioctls switched the master to blocking mode; a blocking
	// descriptor cannot be woken by Close or deadlines, so re-open it through
	// the netpoller.
	master, err := pollable(m)
	if err != nil {
		return nil, err
	}
	p := &ptyProcess{localTree: localTree{marker: spec.Marker}, master: master, rows: spec.Rows, cols: spec.Cols}
	if p.rc, err = master.SyscallConn(); err != nil {
		master.Close()
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(tty.Fd()), &st); err != nil {
		master.Close()
		return nil, fmt.Errorf("stat pty slave: %w", err)
	}
	p.rdev = uint64(st.Rdev) // int32 on macOS
	ws := &unix.Winsize{Row: uint16(spec.Rows), Col: uint16(spec.Cols)}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, ws); err != nil {
		master.Close()
		return nil, fmt.Errorf("set pty size: %w", err)
	}
	p.cmd = &exec.Cmd{
		Path: spec.Path, Args: spec.Argv, Dir: spec.Dir, Env: spec.Env,
		Stdin: tty, Stdout: tty, Stderr: tty,
		SysProcAttr: &syscall.SysProcAttr{
			Setsid: true, Setctty: true, Ctty: 0,
		},
	}
	setDeathSignal(p.cmd.SysProcAttr)
	var k *kept
	p.box, k, err = startContained(p.cmd, spec, start)
	if err != nil {
		master.Close()
		return nil, err
	}
	p.setRoot(p.cmd, k)
	if p.pump, err = newPump(master, outlog.Stdout, sink, ttySlack); err != nil {
		p.killAndClose()
		return nil, err
	}
	go p.pump.run()
	return p, nil
}

// pollable returns a non-blocking duplicate of f registered with the
// netpoller and closes f.
//
// On macOS that poller is kqueue, and golang/go#22099 (open) reports a
// read of a /dev/ptmx master spinning at 100% CPU there when Go opened it
// and could not make it non-blocking; creack/pty has opened it raw since.
// This is chosen over a blocking reader thread per session so that write
// deadlines, Close waking the pump and Quiet work alike on both systems: a
// master XNU will not make non-blocking fails the start here with a clear
// error rather than spin. Compiled for darwin, not run there; should
// kqueue misreport the master, the way out is a blocking read loop in the
// pump.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("dup pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

var _ Process = (*ptyProcess)(nil)

func (p *ptyProcess) Kind() string { return "pty" }

func (p *ptyProcess) Write(b []byte, deadline time.Time) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.master.SetWriteDeadline(deadline); err != nil {
		return 0, err
	}
	return p.master.Write(b)
}

func (p *ptyProcess) CloseStdin() error { return ErrNotPTY }

// Termios reads the slave's line discipline settings through the master.
func (p *ptyProcess) Termios() (ttymode.Modes, error) { return ttymode.Read(p.master) }

// InputWaits: the probe cannot see input still in the terminal's buffers,
// so waits after input are gated; Quiet is a local check.
func (p *ptyProcess) InputWaits() InputWaits {
	return InputWaits{Gated: true, ExactMarks: true, Delivered: true}
}

func (p *ptyProcess) Resize(rows, cols int) error {
	p.smu.Lock()
	defer p.smu.Unlock()
	var err error
	cerr := p.rc.Control(func(fd uintptr) {
		err = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	})
	if cerr != nil {
		return cerr
	}
	if err != nil {
		return err
	}
	p.rows, p.cols = rows, cols
	return nil
}

func (p *ptyProcess) Size() (int, int) {
	p.smu.Lock()
	defer p.smu.Unlock()
	return p.rows, p.cols
}

func (p *ptyProcess) Inspect() (inputwait.Probe, error) {
	return p.probe.Inspect(inputwait.Target{Root: p.PID(), PTY: p.master, TTY: p.rdev})
}

func (p *ptyProcess) Quiet() bool              { return p.pump.quiet() }
func (p *ptyProcess) Drained() <-chan struct{} { return p.pump.done }

func (p *ptyProcess) Wait() (Exit, error) {
	var ru rootUsage
	ex, err := p.waitRoot(&ru)
	p.probe.Close()
	p.box.noteExit(ex, ru)
	p.pump.collect()
	return ex, err
}

func (p *ptyProcess) killAndClose() {
	p.kill()
	p.Close()
}

func (p *ptyProcess) Close() error {
	p.closeOnce.Do(func() {
		p.master.Close()
		p.probe.Close()
		if p.pump != nil {
			<-p.pump.done
		}
		p.box.release()
		p.untrack()
	})
	return nil
}
