package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/record"
)

// Sentinel errors the tool layer maps to messages that tell the agent what
// to do next.
var (
	ErrSessionNotFound = errors.New("session not found")
	ErrReaderNotFound  = errors.New("reader not found")
	ErrTooManySessions = errors.New("too many sessions")
	ErrCommandNotFound = errors.New("command not found")
	ErrTooManyFiles    = errors.New("too many open files")
	ErrBadCwd          = errors.New("bad working directory")
	ErrBadArgs         = errors.New("invalid arguments")
	ErrExited          = errors.New("process has exited")
	ErrRunning         = errors.New("process is still running")
	ErrNotPTY          = errors.New("not a PTY session")
	ErrInputStalled    = errors.New("program is not reading its input")
	ErrClosed          = errors.New("server is shutting down")
	ErrInputTooLarge   = errors.New("input too large")
	ErrLineTooLong     = errors.New("line too long for the terminal")
	ErrStdinClosed     = errors.New("stdin is closed")
)

// Typed errors carry the facts a front end needs to say what to do next.
// Each unwraps to its sentinel above, so errors.Is keeps working; their
// text states what happened and names no front end's commands.

// NotFoundError: no session has this id or name.
type NotFoundError struct {
	ID        string        // the id or name asked for
	ExitedTTL time.Duration // how long exited sessions are kept
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%v: %s", ErrSessionNotFound, excerpt.Q(e.ID))
}
func (e *NotFoundError) Unwrap() error { return ErrSessionNotFound }

// TooManySessionsError: the Manager holds its limit of sessions.
type TooManySessionsError struct{ Count, Limit int }

func (e *TooManySessionsError) Error() string {
	return fmt.Sprintf("%v: %d sessions exist (limit %d)", ErrTooManySessions, e.Count, e.Limit)
}
func (e *TooManySessionsError) Unwrap() error { return ErrTooManySessions }

// TooManyFilesError: agentty ran out of file descriptors starting Path.
type TooManyFilesError struct {
	Open, Limit string // descriptors open and the limit, "?" when unknown
	Path        string
	Err         error // the start failure (EMFILE or ENFILE)
}

func (e *TooManyFilesError) Error() string {
	return fmt.Sprintf("%v (agentty has %s open, limit %s): start %s: %v", ErrTooManyFiles, e.Open, e.Limit, e.Path, e.Err)
}
func (e *TooManyFilesError) Unwrap() error { return ErrTooManyFiles }

// TooLongError: the kernel refused to start a program for the size of its
// arguments and environment (E2BIG); the program exists.
type TooLongError = backend.TooLongError

// RunningError: the session must have ended for this (deleting it).
type RunningError struct{ ID string }

func (e *RunningError) Error() string {
	return fmt.Sprintf("%v: session %s is running", ErrRunning, e.ID)
}
func (e *RunningError) Unwrap() error { return ErrRunning }

// ExitedError: the session's process has ended, or its connection was lost
// (Status.Lost); its output stays readable.
type ExitedError struct {
	ID     string
	Status *record.ExitStatus // nil if the status was not collected yet
}

func (e *ExitedError) Error() string {
	st := e.Status
	if st != nil && st.Lost != "" {
		return fmt.Sprintf("%v: session %s is lost (%s)", ErrExited, e.ID, st.Lost)
	}
	how := "exited"
	if st != nil {
		if st.Signal != "" {
			how = "was killed by " + st.Signal
		} else {
			how = fmt.Sprintf("exited with code %d", st.Code)
		}
	}
	return fmt.Sprintf("%v: session %s %s", ErrExited, e.ID, how)
}
func (e *ExitedError) Unwrap() error { return ErrExited }

// StdinClosedError: the session runs, but nothing reads its stdin pipe any
// more, so input cannot be delivered.
type StdinClosedError struct{ ID string }

func (e *StdinClosedError) Error() string {
	return fmt.Sprintf("%v: session %s is still running but no process reads its stdin any more (the program closed it), so input cannot be delivered", ErrStdinClosed, e.ID)
}
func (e *StdinClosedError) Unwrap() error { return ErrStdinClosed }

// What a pipe-mode session was asked for in a NotPTYError.
const (
	OpResize = "resize"
	OpScreen = "screen"
)

// NotPTYError: a pipe-mode session was asked for what only a terminal has.
type NotPTYError struct {
	ID string
	Op string // OpResize or OpScreen
}

func (e *NotPTYError) Error() string {
	if e.Op == OpScreen {
		return fmt.Sprintf("%v: session %s runs with pipes, which have no terminal", ErrNotPTY, e.ID)
	}
	return fmt.Sprintf("%v: session %s runs with pipes", ErrNotPTY, e.ID)
}
func (e *NotPTYError) Unwrap() error { return ErrNotPTY }

// ReaderNotFoundError: the session has no reader with this id.
type ReaderNotFoundError struct {
	ID     string // the session
	Reader int
	// Readers are the session's readers, listed when a read named a wrong
	// one; nil when the reader was to be unregistered.
	Readers []int
}

func (e *ReaderNotFoundError) Error() string {
	msg := fmt.Sprintf("%v: reader %d on session %s", ErrReaderNotFound, e.Reader, e.ID)
	if e.Readers != nil {
		msg += fmt.Sprintf("; readers are %v", e.Readers)
	}
	return msg
}
func (e *ReaderNotFoundError) Unwrap() error { return ErrReaderNotFound }

// LineTooLongError: input would make a line longer than a canonical-mode
// terminal passes on; nothing was sent.
type LineTooLongError struct {
	ID      string
	Length  int // bytes of the line the input would make
	Earlier int // of them, bytes typed by earlier calls without a line end
}

func (e *LineTooLongError) Error() string {
	earlier := ""
	if e.Earlier > 0 {
		earlier = fmt.Sprintf(", %d of them sent by earlier calls without a line end (send enter to end that line, or keys [\"ctrl+u\"] to erase it)", e.Earlier)
	}
	return fmt.Sprintf("%v: the terminal of session %s is in canonical (line) mode, where the program receives at most %d bytes of one line and the kernel drops the rest; "+
		"this input makes a line of %d bytes%s. Nothing was sent.", ErrLineTooLong, e.ID, MaxCanonLine, e.Length, earlier)
}
func (e *LineTooLongError) Unwrap() error { return ErrLineTooLong }
