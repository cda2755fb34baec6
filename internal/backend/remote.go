package backend

import (
	"context"
	"syscall"
	"time"
)

// RemoteSpec describes a program to start on another machine. Unlike Spec
// nothing is resolved locally: the path, the working directory and the
// environment are the remote host's business.
type RemoteSpec struct {
	Host      string   // user@host[:port] or an ssh config alias
	SessionID string   // the session's id, for listings
	Marker    string   // AGENTTY_SESSION value the remote tree carries
	Argv      []string // program and arguments, run on the remote
	Dir       string   // remote working directory; "" for the login directory
	Env       map[string]string
	PTY       bool
	Rows      int
	Cols      int
	// MergeStderr (pipe only) merges stderr into stdout on the remote,
	// keeping their exact order.
	MergeStderr bool
	// AcceptNewHostKey records an unknown host key (trust on first use).
	// A changed key is refused regardless.
	AcceptNewHostKey bool
}

// Remote is implemented by processes that run on another machine. Local
// process-group signals and /proc walks do not apply to them, so the session
// engine asks the process itself.
type Remote interface {
	// Host names the connection: user@host:port.
	Host() string
	// Signal sends sig to the program's process group on the remote.
	Signal(sig syscall.Signal) error
	// Terminate ends the whole remote process tree: SIGTERM, then SIGKILL
	// after grace (at once when grace is 0). It returns once nothing of the
	// tree is left on the remote, or the connection is gone.
	Terminate(ctx context.Context, grace time.Duration) error
	// InputGrace is how long input written now may take to reach the
	// program, which depends on the network: until then a program still
	// blocked as before the write has not seen the input yet.
	InputGrace() time.Duration
}
