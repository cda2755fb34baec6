// Session lifecycle.
//
// Design: a Session owns one backend.Process and one outlog.Log. The
// process's pumps append to the log; the session's exit goroutine (owned by
// the Manager's WaitGroup) waits for the root process, lets the pumps drain
// the last output, records the exit status under mu and closes done. Waiters
// select on log.Changed(), done, their deadline and their ctx; nothing here
// ever blocks the pumps.
package session

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/sigs"
)

// drainGrace bounds how long exit waits for end of file after Wait, which
// returns only once everything the root process wrote is in the log:
// descendants that keep the terminal open can hold it forever, and their
// output keeps flowing into the log regardless.
const drainGrace = 250 * time.Millisecond

// Session is one started program and its output.
type Session struct {
	ID      string
	Name    string
	Command string   // shell command line, or argv joined for display
	Argv    []string // what was executed
	Mode    record.Mode
	Cwd     string
	EnvKeys []string // keys the caller set (values are not kept)
	Started time.Time

	proc backend.Process
	log  outlog.Log
	// held is what holds a local session's processes ("", HeldSandbox,
	// HeldLimits); set before the session is listed, never changed.
	held string
	mgr  *Manager
	// disown tells the orphan reaper the root's exit status was collected;
	// a no-op for a root it never saw (a remote one). Set before adopt.
	disown func()
	scr    *screenFeed // PTY sessions: the rendered screen (see screen.go); nil otherwise
	// feeding is scr once Manager.adopt has made its feeder startable: from
	// then on each append kicks it (appendOutput, on the pump's goroutine).
	feeding atomic.Pointer[screenFeed]

	done chan struct{} // closed once the exit status is known

	mu         sync.Mutex
	status     *record.ExitStatus // guarded by mu; set once before done closes
	exitedAt   time.Time          // guarded by mu
	drained    bool               // guarded by mu; output reached EOF after exit
	closed     bool               // guarded by mu; process resources released
	readers    map[int]*reader    // guarded by mu
	nextReader int                // guarded by mu
	lastUse    time.Time          // guarded by mu; last read or input
	gate       inputGate          // guarded by mu; see send.go
	lastInput  InputMark          // guarded by mu; see echo.go
	echoes     []echo             // guarded by mu; expected echoes of typed lines, oldest first
	expire     *time.Timer        // guarded by mu; TTL removal after exit
	limitTimer *time.Timer        // guarded by mu; idle timeout / max runtime check, nil when off
	endedBy    string             // guarded by mu; the limit that made agentty end the session
	lease      lease              // guarded by mu; a person's hold on the keyboard (lease.go)
	watch      chan struct{}      // guarded by mu; closed at a lease or size change, nil until asked

	// canonPending is how many bytes agentty typed on the line a
	// canonical-mode terminal still assembles (see canon.go); guarded by mu.
	canonPending int
}

// PID is the root process id.
func (s *Session) PID() int { return s.proc.PID() }

// Done is closed when the process has exited and its output was collected.
func (s *Session) Done() <-chan struct{} { return s.done }

// Status returns the exit status, or nil while running.
func (s *Session) Status() *record.ExitStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// exitLoop is owned by the Manager (its WaitGroup): it waits for the root
// process, collects the last output, and publishes the status.
func (s *Session) exitLoop() {
	ex, err := s.proc.Wait()
	s.disown()
	s.noteLimit()
	if err != nil {
		s.mgr.log.Warn("wait failed", "session", s.ID, "err", err)
	}
	st := record.ExitStatus{Code: ex.Code, Lost: ex.Lost}
	if ex.Signal != 0 {
		st.Signal = signalName(ex.Signal)
	}
	drained := false
	t := time.NewTimer(drainGrace)
	select {
	case <-s.proc.Drained():
		drained = true
	case <-t.C:
	}
	t.Stop()
	// Recorded before the status is published: a durable recorder returns
	// once the exit and the output before it are committed, so nothing a
	// reader is told "exited" about is lost if the server is killed next.
	at := time.Now()
	s.mgr.cfg.Recorder.Exited(s.ID, st, at)
	s.mu.Lock()
	s.status = &st
	s.exitedAt = at
	s.drained = drained
	s.mu.Unlock()
	if drained {
		s.closeLog()
		s.release()
	}
	close(s.done)
	s.Release("", "exited")
	s.notify()
	s.mgr.exited(s)
}

func signalName(sig syscall.Signal) string {
	if n := sigs.Name(sig); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// appendOutput is the process's sink: the bytes go to the log, and the
// screen's feeder, if it is not running, starts to render them.
func (s *Session) appendOutput(st outlog.Stream, p []byte) {
	s.log.Append(st, p)
	if f := s.feeding.Load(); f != nil {
		f.kick()
	}
}

// closeLog ends the output; the screen's feeder renders to the end and
// closes the screen.
func (s *Session) closeLog() {
	s.log.CloseWrite()
	if f := s.feeding.Load(); f != nil {
		f.kick()
	}
}

// release closes the process's descriptors once, after which the session is
// a record: its log stays readable.
func (s *Session) release() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.proc.Close()
}

// Terminate ends the whole process tree: SIGTERM to every process group and
// descendant, SIGKILL after grace (at once when grace is 0). It returns once
// the root has exited. Idempotent: on an exited session it sweeps stray
// descendants and returns the recorded status.
func (s *Session) Terminate(ctx context.Context, grace time.Duration) (record.ExitStatus, error) {
	if !isDone(s.done) {
		sig := "SIGTERM"
		if grace <= 0 {
			sig = "SIGKILL"
		}
		s.mgr.cfg.Recorder.Signaled(s.ID, sig)
	}
	if err := s.proc.Terminate(ctx, grace); err != nil {
		return record.ExitStatus{}, fmt.Errorf("terminate %s%s: %w", s.ID, onHost(s.Host()), err)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return record.ExitStatus{}, ctx.Err()
	}
	// The tree is dead, so nobody can still hold the output open.
	s.closeLog()
	s.release()
	return *s.Status(), nil
}

// State reports running, awaiting_input, awaiting_password or exited, from
// the kernel (see inputwait), with the same input gate waits use.
func (s *Session) State() (record.State, inputwait.Probe) {
	if isDone(s.done) {
		return s.endState(), inputwait.Probe{}
	}
	p, ok := s.awaiting(time.Now())
	if !ok {
		return record.StateRunning, p
	}
	return stateOf(p.State), p
}

// endState is lost when the remote connection dropped before the program
// ended, else exited; call it once done is closed.
func (s *Session) endState() record.State {
	if st := s.Status(); st != nil && st.Lost != "" {
		return record.StateLost
	}
	return record.StateExited
}

func (s *Session) touch() {
	s.mu.Lock()
	s.lastUse = time.Now()
	s.mu.Unlock()
}

// Resize changes a PTY session's terminal size.
func (s *Session) Resize(rows, cols int) error {
	if s.Mode != record.ModePTY {
		return &NotPTYError{ID: s.ID, Op: OpResize}
	}
	if err := checkSize(rows, cols); err != nil {
		return err
	}
	if isDone(s.done) {
		return s.exitedErr()
	}
	if s.scr == nil {
		if err := s.proc.Resize(rows, cols); err != nil {
			return err
		}
		s.mgr.cfg.Recorder.Resized(s.ID, rows, cols)
		s.notify()
		return nil
	}
	// The screen changes size where the output does: bytes the program
	// wrote before the resize (Quiet collects what the kernel still holds)
	// are drawn at the old size. It is queued before the terminal changes:
	// a program redraws the moment SIGWINCH reaches it, and a feeder that
	// renders the redraw before a later queueing would draw it at the old
	// size. resizeMu keeps the screen's order of sizes the terminal's.
	s.scr.resizeMu.Lock()
	defer s.scr.resizeMu.Unlock()
	s.proc.Quiet()
	at := s.log.Stats().End
	oldRows, oldCols := s.proc.Size()
	s.scr.queueResize(at, rows, cols)
	if err := s.proc.Resize(rows, cols); err != nil {
		s.scr.queueResize(at, oldRows, oldCols) // the terminal kept its size
		return err
	}
	s.mgr.cfg.Recorder.Resized(s.ID, rows, cols)
	s.notify()
	return nil
}
