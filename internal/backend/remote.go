package backend

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
