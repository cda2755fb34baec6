// Package proctree keeps agentty's promise that no process it starts outlives
// the session that owns it, or agentty itself.
//
// It finds a session's processes (the child tree plus anything still carrying
// the session's environment marker after being reparented), terminates them
// gracefully then forcibly, reaps orphans adopted as a child subreaper, runs
// process starts on one long-lived OS thread so PR_SET_PDEATHSIG stays bound to
// agentty's lifetime, and runs a guard process that sweeps up everything marked
// with agentty's instance when agentty dies for any reason, SIGKILL included.
package proctree

import "errors"

// EnvKey is the environment variable that marks processes started by agentty.
// Its value is "<instance>/<session-id>"; descendants inherit it, which is how
// processes that escaped the tree (double forks, setsid) are still found.
const EnvKey = "AGENTTY_SESSION"

// GuardInstanceEnv carries the agentty instance to the guard process, so the
// guard knows which marker prefix to sweep without parsing arguments.
const GuardInstanceEnv = "AGENTTY_GUARD_INSTANCE"

// Proc identifies one process instance. StartTime (field 22 of /proc/PID/stat,
// in clock ticks since boot) guards against pid reuse: the pair (PID,
// StartTime) names one process for the lifetime of the system.
type Proc struct {
	PID, PPID, PGID, SID int
	StartTime            uint64
	Comm                 string
}

var (
	// ErrBadRoot is returned for a root pid that must never be treated as a
	// session root: agentty itself or init. Terminating either would kill far
	// more than one session.
	ErrBadRoot = errors.New("proctree: refusing root pid")

	// ErrSurvivors is returned when processes are still alive after the
	// bounded SIGKILL wait; callers may report them but cannot do more.
	ErrSurvivors = errors.New("proctree: processes survived SIGKILL")

	// ErrGuardNotReady is returned by StartGuard when the guard process does
	// not confirm that its signal handling is armed.
	ErrGuardNotReady = errors.New("proctree: guard did not become ready")

	// ErrBadInstance is returned by StartGuard for an instance id that could
	// make the guard's marker prefix match other instances' processes.
	ErrBadInstance = errors.New("proctree: invalid instance id")

	// ErrUnsupported is returned on platforms without /proc and pidfds.
	ErrUnsupported = errors.New("proctree: unsupported platform")
)
