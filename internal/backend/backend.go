// Package backend starts programs and carries their bytes. A Process looks
// the same to the session engine whether its bytes travel over a PTY, over
// pipes, or over an SSH channel (internal/sshbackend): everything the engine
// asks of a program — its output, input, signals, the end of its tree, and
// whether it waits for input — is a method of Process, so the engine never
// asks which kind it holds.
package backend

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/ttymode"
)

// Errors callers branch on.
var (
	// ErrNotPTY is returned by PTY-only operations on a pipe process.
	ErrNotPTY = errors.New("not a PTY session")
	// ErrStdinClosed is returned when writing after CloseStdin.
	ErrStdinClosed = errors.New("stdin is closed")
	// ErrNoReader wraps EPIPE from Write while the root process still
	// runs: the program closed its stdin, so input can never arrive.
	ErrNoReader = errors.New("no process reads stdin")
	// ErrNoTermios is returned by Termios where the terminal's modes
	// cannot be read (a remote terminal).
	ErrNoTermios = errors.New("terminal modes cannot be read")
	// ErrNoExitWatch is returned by OnExit where the exit cannot be
	// reported (remote processes, kernels without pidfds): block in Wait.
	ErrNoExitWatch = errors.New("the exit cannot be watched")
)

// InputWaits says how the session engine decides, around input, that the
// program waits for more.
type InputWaits struct {
	// Gated: Inspect cannot count input written but not yet taken (a
	// terminal's buffers, a remote channel), so right after a write its
	// "waiting for input" may be the stale verdict of before the write;
	// the engine holds such a verdict until the program has run (its input
	// gate). A local stdin pipe's unread bytes are counted: no gate.
	Gated bool
	// Grace is how long input written now may take to reach the program:
	// until then a program still blocked as before the write has not seen
	// it. 0 leaves the engine's own minimum.
	Grace time.Duration
	// ExactMarks: Quiet is local and cheap, so the engine takes it before
	// marking where input was written, and output the program wrote before
	// the input never counts as after it. A remote Quiet is a round trip
	// that belongs to the input probe: marks take the log as it stands.
	ExactMarks bool
	// Delivered: input goes to a local terminal, whose line discipline
	// takes in every byte of a write that has returned before a read,
	// select or poll on it sleeps (inputwait.Readers.Flushing). A reader
	// seen running after the write and blocked in one of those again has
	// seen all of it, so the gate can open at once.
	Delivered bool
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
	// Marker is the KEY=VALUE entry of Env every process of the tree
	// inherits, so Terminate finds descendants that left the process group.
	Marker string
	// Contain holds the tree in a cgroup, under limits and a sandbox
	// (local only); nil keeps process-tree tracking alone.
	Contain *Contain
	// Keeper is the executable and arguments that run proctree.RunKeeper
	// (agentty's own, "__keeper"). A tree no cgroup holds is started
	// through a keeper, which holds every process it starts however it
	// escapes; nil starts the program directly (tests of packages whose
	// binary cannot be a keeper).
	Keeper []string
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
	// OnExit calls f once, when Wait is due, so nobody has to block in
	// Wait meanwhile: the root has exited (or watching failed after all,
	// and Wait blocks until it does). f runs on a goroutine shared by all
	// processes and must not block. ErrNoExitWatch: f is never called;
	// block in Wait instead. Local processes: see exitwatch_linux.go.
	OnExit(f func()) error
	// Close stops the pumps and releases every descriptor. Safe to call twice.
	Close() error

	// Host names the machine the program runs on: "" for this one, else
	// the connection (user@host:port).
	Host() string
	// Signal sends sig to the program's process group, as a terminal would;
	// a group that is already gone is not an error.
	Signal(sig syscall.Signal) error
	// Terminate ends the whole process tree: SIGTERM, then SIGKILL after
	// grace (at once when grace is 0). It returns once nothing of the tree
	// is left (remote: or the connection is gone). After the root exited it
	// sweeps stray descendants.
	Terminate(ctx context.Context, grace time.Duration) error
	// Termios returns the terminal's input modes, which decide how much of
	// a line the program can receive: ErrNotPTY for pipes, ErrNoTermios
	// where they cannot be read.
	Termios() (ttymode.Modes, error)
	// InputWaits says how input waits are decided for this process.
	InputWaits() InputWaits
	// Containment says how the tree is held (cgroup or process tree),
	// under which limits and sandbox, what it used, and whether a limit
	// ended it. Remote processes report a zero Report.
	Containment() contain.Report
	// Listening lists the sockets the program's tree listens on, from the
	// kernel's socket tables; ports.ErrUnsupported where they cannot be read.
	Listening() ([]ports.Socket, error)
}
