package session

// The input lease: a person at the session's terminal (agentty attach, the
// web view) holds the keyboard while they type, and an agent's input is
// refused until they hand it back, detach, or stop typing for LeaseTimeout.
// Agents keep reading; only writing is exclusive, so a person and an agent
// never interleave keystrokes on one line.
//
// The lease lives under the session's mu. Its end by inactivity is a timer
// (time.AfterFunc) reset by every key; changes are broadcast to watchers by
// closing and replacing a channel (Watch), and reported to the Recorder
// (transcript) and Config.OnLease (audit log).

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/inputwait"
)

// DefaultLeaseTimeout is how long a person's lease lasts after their last key.
const DefaultLeaseTimeout = 30 * time.Second

// ErrLeased marks input refused because a person holds the keyboard.
var ErrLeased = errors.New("a person is typing in this session")

// LeasedError: an agent's input was refused while a person holds the
// keyboard.
type LeasedError struct {
	ID      string
	Holder  string        // who holds it: "attach", "web"
	Timeout time.Duration // the lease ends this long after their last key
}

func (e *LeasedError) Error() string {
	return fmt.Sprintf("a person is typing in session %s via %s", e.ID, e.Holder)
}
func (e *LeasedError) Unwrap() error { return ErrLeased }

// LeaseRecorder is a record.Recorder that also keeps lease changes in the
// transcript (the store's does); the engine checks for it.
type LeaseRecorder interface {
	Leased(id, holder string, taken bool, why string)
}

// lease is who holds a session's keyboard; guarded by Session.mu.
type lease struct {
	holder string      // "" when no person holds it
	timer  *time.Timer // ends the lease LeaseTimeout after the last key
	// gen counts takes; a timer that fired late (after a newer key)
	// carries an old gen and leaves the renewed lease alone.
	gen uint64
}

// Holder is who holds the keyboard now ("" when nobody: agents may type).
func (s *Session) Holder() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease.holder
}

// Watch returns a channel closed at the next change of the lease or the
// terminal size, for live views.
func (s *Session) Watch() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watch == nil {
		s.watch = make(chan struct{})
	}
	return s.watch
}

// notifyLocked wakes the watchers; call with mu held.
func (s *Session) notifyLocked() {
	if s.watch != nil {
		close(s.watch)
		s.watch = nil
	}
}

func (s *Session) notify() {
	s.mu.Lock()
	s.notifyLocked()
	s.mu.Unlock()
}

// leaseErr is the refusal of an agent's input while a person holds the
// keyboard, or nil.
func (s *Session) leaseErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lease.holder == "" {
		return nil
	}
	return &LeasedError{ID: s.ID, Holder: s.lease.holder, Timeout: s.mgr.leaseTimeout()}
}

// Take gives the keyboard to a person (who: "attach", "web"), or renews
// their lease. It fails once the session has ended.
func (s *Session) Take(who string) error {
	if isDone(s.done) {
		return s.exitedErr()
	}
	if who == "" {
		return fmt.Errorf("%w: name who takes the keyboard", ErrBadArgs)
	}
	s.mu.Lock()
	prev := s.lease.holder
	if s.lease.timer != nil {
		s.lease.timer.Stop()
	}
	s.lease.gen++
	gen := s.lease.gen
	s.lease.timer = time.AfterFunc(s.mgr.leaseTimeout(), func() { s.leaseIdle(gen) })
	s.lease.holder = who
	if prev != who {
		s.notifyLocked()
	}
	s.mu.Unlock()
	if prev != who {
		if prev != "" {
			s.reportLease(prev, false, "taken by "+who)
		}
		s.reportLease(who, true, "")
	}
	return nil
}

// leaseIdle ends the lease of take gen when no key renewed it since.
func (s *Session) leaseIdle(gen uint64) {
	s.mu.Lock()
	if s.lease.gen != gen || s.lease.holder == "" {
		s.mu.Unlock()
		return
	}
	holder := s.lease.holder
	s.lease.holder, s.lease.timer = "", nil
	s.notifyLocked()
	s.mu.Unlock()
	s.reportLease(holder, false, "idle")
}

// Release hands the keyboard back to agents if who holds it (who "" ends
// anyone's lease). why says how it ended for the record: "released",
// "detached", "exited" (and, from the engine itself, "idle" or "taken by
// web" when another person took it).
func (s *Session) Release(who, why string) { s.endLease(who, why) }

func (s *Session) endLease(who, why string) {
	s.mu.Lock()
	holder := s.lease.holder
	if holder == "" || (who != "" && who != holder) {
		s.mu.Unlock()
		return
	}
	s.lease.holder = ""
	if s.lease.timer != nil {
		s.lease.timer.Stop()
		s.lease.timer = nil
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.reportLease(holder, false, why)
}

func (s *Session) reportLease(holder string, taken bool, why string) {
	if r, ok := s.mgr.cfg.Recorder.(LeaseRecorder); ok {
		r.Leased(s.ID, holder, taken, why)
	}
	if f := s.mgr.cfg.OnLease; f != nil {
		f(s, holder, taken, why)
	}
}

// personWrite bounds how long a person's keystrokes wait for a program
// that does not read its input.
const personWrite = 5 * time.Second

// Type writes a person's keystrokes as they are, taking (or renewing) the
// keyboard for who. They are recorded with who as the sender, redacted at
// a password prompt like an agent's input.
func (s *Session) Type(who string, p []byte) error {
	if err := s.Take(who); err != nil {
		return err
	}
	if len(p) == 0 {
		return nil
	}
	s.touch()
	secret := false
	if s.proc.InputWaits().Gated {
		if pr, err := s.proc.Inspect(); err == nil {
			secret = pr.State == inputwait.AwaitingPassword
		}
	}
	s.mgr.cfg.Recorder.Input(s.ID, p, secret, who)
	n, err := s.proc.Write(p, time.Now().Add(personWrite))
	if err != nil {
		return s.writeErr(err, n, len(p))
	}
	return nil
}

// Size is the terminal size (0, 0 for pipes).
func (s *Session) Size() (rows, cols int) { return s.proc.Size() }

func (m *Manager) leaseTimeout() time.Duration {
	if m.cfg.LeaseTimeout > 0 {
		return m.cfg.LeaseTimeout
	}
	return DefaultLeaseTimeout
}
