// Package backend starts programs and carries their bytes. A Process looks
// the same to the session engine whether its bytes travel over a PTY, over
// pipes, or (later) over an SSH channel.
package backend

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
)

// Errors callers branch on.
var (
	// ErrNotPTY is returned by PTY-only operations on a pipe process.
	ErrNotPTY = errors.New("not a PTY session")
	// ErrStdinClosed is returned when writing after CloseStdin.
	ErrStdinClosed = errors.New("stdin is closed")
)

// LineDiscipline is implemented by a process on a local PTY: the terminal's
// input modes decide how much of a line the program can receive.
type LineDiscipline interface {
	// Termios returns the terminal's current settings.
	Termios() (unix.Termios, error)
}

// Spec describes the program to start.
type Spec struct {
	Path string   // resolved executable path
	Argv []string // argument vector including argv[0]
	Dir  string   // working directory
	Env  []string // full child environment
	Rows int      // PTY rows (PTY only)
	Cols int      // PTY columns (PTY only)
	// MergeStderr gives a pipe child one pipe for stdout and stderr, so
	// their relative order is exact (pipe only).
	MergeStderr bool
}

// Sink receives output chunks. It is called from the pump goroutine and must
// not block (outlog.Log.Append does not). p is only valid during the call.
type Sink func(s outlog.Stream, p []byte)

// Process is a started program.
type Process interface {
	// PID is the root process id; it leads its own process group.
	PID() int
	// Kind is "pty" or "pipe".
	Kind() string
	// Write sends input, giving up at deadline if the program does not take it.
	Write(p []byte, deadline time.Time) (int, error)
	// CloseStdin ends the program's input (pipe mode). On a PTY it returns
	// ErrNotPTY: callers send the terminal's EOF key instead.
	CloseStdin() error
	// Resize changes the terminal size (PTY only).
	Resize(rows, cols int) error
	// Size reports the terminal size (0, 0 for pipes).
	Size() (rows, cols int)
	// Inspect asks the kernel whether the program waits for input.
	Inspect() (inputwait.Probe, error)
	// Quiet reports that everything the program wrote before the call is in
	// the log: nothing waits in the kernel or is in flight inside the pump.
	// Output it finds on the way is appended, and it reports false.
	Quiet() bool
	// Drained is closed once every output stream reached end of file.
	Drained() <-chan struct{}
	// Wait blocks until the root process exits and every byte it wrote is
	// in the sink, reaps it and says how it ended. Output of descendants
	// that outlive it may still follow (see Drained). Call it once.
	Wait() (Exit, error)
	// Close stops the pumps and releases every descriptor. Safe to call twice.
	Close() error
}
