package inputwait

import (
	"errors"
	"os"
	"strconv"
)

// State is what the program is doing with respect to its input.
type State string

// The states a Probe can report.
const (
	// Running means the program is not (only) waiting for input: it is
	// computing, sleeping, waiting on something other than its input, or
	// has exited. Callers keep waiting.
	Running State = "running"
	// AwaitingInput means the inspected group is blocked reading its input
	// and nothing else in it is doing work.
	AwaitingInput State = "awaiting_input"
	// AwaitingPassword is AwaitingInput with the terminal in canonical mode
	// and echo off, which is how password prompts read a line.
	AwaitingPassword State = "awaiting_password"
)

// Target names the process tree and the input channel to inspect.
type Target struct {
	Root  int      // pid of the process agentty started (session root); it is agentty's child
	PTY   *os.File // PTY master (creack/pty); nil in pipe mode
	TTY   uint64   // st_rdev of the PTY slave (device number); 0 in pipe mode
	Stdin *os.File // pipe mode: agentty's write end of the child's stdin pipe; nil if closed or PTY mode
	// Verdict is how to decide; zero takes this platform's own (exact on
	// Linux amd64 and arm64, none elsewhere for now).
	Verdict Verdict
}

// Verdict is a way of deciding whether a program waits for input. Where a
// kernel tells less than Linux does, a verdict can only be inferred, or not
// given at all; every platform speaks the same Probe either way.
type Verdict uint8

// The verdicts a Target can ask for.
const (
	// VerdictDefault is this platform's own verdict.
	VerdictDefault Verdict = iota
	// VerdictExact reads which syscall each thread of the input's group
	// is blocked in and on which descriptor: Linux amd64 and arm64.
	VerdictExact
	// VerdictInferred decides from what any kernel shows: the group's
	// threads all waiting, no CPU time spent since, the terminal's input
	// queue empty, and its modes for a password prompt.
	VerdictInferred
	// VerdictSettle gives no verdict: probes fail with ErrNoVerdict and
	// waits end when output settles.
	VerdictSettle
)

func (v Verdict) String() string {
	switch v {
	case VerdictDefault:
		return "default"
	case VerdictExact:
		return "exact"
	case VerdictInferred:
		return "inferred"
	case VerdictSettle:
		return "settle"
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// Probe is one observation.
type Probe struct {
	State State
	// Fingerprint changes whenever any inspected process ran since the
	// previous probe or the set of inspected processes changed. Compare the
	// value from before writing input with later ones to reject a stale
	// AwaitingInput that predates the program waking up.
	Fingerprint uint64
	// Readers describes the threads found blocked reading the input, when
	// State is AwaitingInput from a local inspection (zero otherwise).
	Readers Readers
	// Detail explains the decision for logs and tool results, e.g.
	// "pid 4242 (python3) in pselect6 on fd 0 (tty)".
	Detail string
}

// ErrInvalidTarget is returned when the Target cannot name a process tree
// (Root is not a positive pid) or names no known Verdict.
var ErrInvalidTarget = errors.New("inputwait: invalid target")

// ErrNoVerdict is returned, with a Running probe whose Detail says why, when
// no verdict is available for the target: the platform cannot give the one
// asked for, or the target asks to settle. Callers then end their waits on
// settled output instead.
var ErrNoVerdict = errors.New("inputwait: no input-wait verdict")

// Readers identifies the threads a probe found blocked reading the input.
// Two probes with the same IDs and different Runs saw one of the same
// threads run in between: it woke, and blocked on the input again.
type Readers struct {
	IDs  uint64 // hash of the reading threads' ids (0: none seen)
	Runs uint64 // hash of how much each of them has run so far
	// Flushing: every one of them waits in read, select or poll, which on
	// a local terminal first take in input the kernel is still delivering
	// (n_tty flushes the PTY's pending buffer work before it sleeps), so
	// such a reader that began waiting after a write returned has seen
	// every byte of it. epoll_wait does not ask the terminal again.
	Flushing bool
}
