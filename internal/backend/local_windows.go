package backend

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/proctree"
)

// endCode is the exit code TerminateJobObject gives every member when
// agentty ends a tree.
const endCode = 1

// ctrlTimeout bounds the helper that delivers a console control event.
const ctrlTimeout = 5 * time.Second

// winTree is what PTY and pipe processes share on Windows: the root, and
// the job that holds it and everything it starts (job_windows.go).
type winTree struct {
	pid  uint32
	proc windows.Handle
	job  windows.Handle
	key  uintptr // the job's name in the exit watcher

	empty     chan struct{} // closed once the job has no process left
	emptyOnce sync.Once

	// ctrlC delivers Ctrl+C; ctrlExe is agentty's executable, which
	// delivers console events to a console agentty is not attached to
	// (proctree.RunCtrl); "" when there is none (Spec.Keeper unset).
	ctrlC   func() error
	ctrlExe string

	ended     atomic.Int32 // the signal that ended the job, 0 if none
	closeOnce sync.Once
}

// refuseContain: Windows offers no limits or sandbox (a Job Object could
// carry limits, later).
func refuseContain(spec Spec) error {
	if spec.Contain != nil && !spec.Contain.Profile.Empty() {
		return fmt.Errorf("start %s: limits and sandboxes are not offered on Windows: %w", spec.Path, errors.ErrUnsupported)
	}
	return nil
}

// start makes the job and starts spec in it.
func (t *winTree) start(spec Spec, io spawnIO) error {
	t.empty = make(chan struct{})
	if len(spec.Keeper) > 0 {
		t.ctrlExe = spec.Keeper[0]
	}
	job, err := newJob()
	if err != nil {
		return err
	}
	watch := func(proc windows.Handle, pid uint32) error {
		key, err := jobs.watch(job, proc, pid, t.emptied)
		t.key = key
		return err
	}
	proc, pid, err := spawn(spec, io, job, watch, func() { jobs.forget(t.key) })
	if err != nil {
		windows.CloseHandle(job)
		return err
	}
	t.job, t.proc, t.pid = job, proc, pid
	return nil
}

// emptied is called by the watcher when the last member exited.
func (t *winTree) emptied() { t.emptyOnce.Do(func() { close(t.empty) }) }

func (t *winTree) gone() bool {
	select {
	case <-t.empty:
		return true
	default:
		return false
	}
}

func (t *winTree) PID() int     { return int(t.pid) }
func (t *winTree) Host() string { return "" }

// OnExit implements Process.
func (t *winTree) OnExit(f func()) error {
	jobs.onExit(t.key, f)
	return nil
}

// Signal delivers sig as Windows can (windowsAction): a control event, or
// the end of the whole tree.
func (t *winTree) Signal(sig syscall.Signal) error {
	a, err := windowsAction(sig)
	if err != nil {
		return err
	}
	if t.gone() {
		return nil
	}
	switch a {
	case winCtrlC:
		return t.ctrlC()
	case winCtrlBreak:
		return t.ctrl(windows.CTRL_BREAK_EVENT)
	}
	return t.end(sig)
}

// ctrl has agentty's executable attach to the root's console and raise ev
// there (proctree.RunCtrl): a process can raise console events only on
// its own console, and agentty has none.
func (t *winTree) ctrl(ev uint32) error {
	if t.ctrlExe == "" {
		return fmt.Errorf("%w: no agentty executable to deliver console control events with", ErrSignalUnsupported)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ctrlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.ctrlExe, proctree.CtrlArg, fmt.Sprint(t.pid), proctree.CtrlEventName(ev))
	// Its own hidden console, which it leaves for the root's.
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
	if out, err := cmd.CombinedOutput(); err != nil && !t.gone() {
		return fmt.Errorf("console control event to %d: %v: %s", t.pid, err, out)
	}
	return nil
}

// end ends every process of the job; sig is reported as what ended the
// root, if it had not exited yet.
func (t *winTree) end(sig syscall.Signal) error {
	t.ended.CompareAndSwap(0, int32(sig))
	if err := windows.TerminateJobObject(t.job, endCode); err != nil && !t.gone() {
		return fmt.Errorf("terminate job of %d: %w", t.pid, err)
	}
	return nil
}

// Terminate ends the tree: Ctrl+C, then Ctrl+Break half-way through the
// grace, then TerminateJobObject; it returns once the job is empty.
func (t *winTree) Terminate(ctx context.Context, grace time.Duration) error {
	if grace > 0 && !t.gone() {
		steps := []func() error{t.ctrlC, func() error { return t.ctrl(windows.CTRL_BREAK_EVENT) }}
		for _, step := range steps {
			if t.gone() {
				break
			}
			_ = step() // the job is ended after the grace either way
			if !t.waitEmpty(ctx, grace/2) {
				continue
			}
			return nil
		}
	}
	if !t.gone() {
		if err := t.end(syscall.SIGKILL); err != nil {
			return err
		}
	}
	select {
	case <-t.empty:
		return nil
	case <-ctx.Done():
	}
	// The kernel's count is the truth; the watcher's message may be on
	// its way.
	n, err := activeProcesses(t.job)
	if err != nil {
		return fmt.Errorf("terminate %d: %w (and %v)", t.pid, ctx.Err(), err)
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("terminate %d: %d processes left in its job: %w", t.pid, n, ctx.Err())
}

// waitEmpty waits up to d for the job to empty.
func (t *winTree) waitEmpty(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-t.empty:
		return true
	case <-tm.C:
	case <-ctx.Done():
	}
	return false
}

// waitRoot waits for the root's exit. An exit code as Windows reports it
// (0xC000013A after Ctrl+C); a root agentty ended reports the signal.
func (t *winTree) waitRoot() (Exit, error) {
	if _, err := windows.WaitForSingleObject(t.proc, windows.INFINITE); err != nil {
		return Exit{}, fmt.Errorf("wait %d: %w", t.pid, err)
	}
	var code uint32
	if err := windows.GetExitCodeProcess(t.proc, &code); err != nil {
		return Exit{}, fmt.Errorf("exit code of %d: %w", t.pid, err)
	}
	if sig := syscall.Signal(t.ended.Load()); sig != 0 && code == endCode {
		return Exit{Code: -1, Signal: sig}, nil
	}
	return Exit{Code: int(code)}, nil
}

// Inspect: Windows has no input-wait verdict; waits settle.
func (t *winTree) Inspect() (inputwait.Probe, error) {
	return inputwait.Inspect(inputwait.Target{Root: t.PID()})
}

// Containment: the job holds the tree exactly; no limits or sandbox.
func (t *winTree) Containment() contain.Report {
	return contain.Report{Kind: contain.KindProcessTree, Reason: "Windows: a Job Object holds the tree"}
}

// Listening lists the sockets the job's members listen on.
func (t *winTree) Listening() ([]ports.Socket, error) {
	pids, err := jobPIDs(t.job)
	if err != nil {
		return nil, err
	}
	owners := make([]ports.Owner, len(pids))
	for i, pid := range pids {
		owners[i] = ports.Owner{PID: pid}
	}
	return ports.Scan(owners)
}

// release forgets the job and closes it, which ends whatever is still in
// it (KILL_ON_JOB_CLOSE).
func (t *winTree) release() {
	jobs.forget(t.key)
	windows.CloseHandle(t.job)
	windows.CloseHandle(t.proc)
}
