package mcpserver

// Wire types of listening sockets and wait_sessions.

// Socket is one socket a session's processes listen on.
type Socket struct {
	Proto   string `json:"proto" jsonschema:"tcp, tcp6, udp, udp6 or unix"`
	Address string `json:"address,omitempty" jsonschema:"local IP address (0.0.0.0 / :: = all)"`
	Port    int    `json:"port,omitempty"`
	Path    string `json:"path,omitempty" jsonschema:"unix socket path (@ = abstract)"`
	PID     int    `json:"pid" jsonschema:"process holding it"`
	Command string `json:"command" jsonschema:"that process's name"`
}

// WaitSessionsInput are wait_sessions's arguments.
type WaitSessionsInput struct {
	SessionIDs []string `json:"session_ids" jsonschema:"sessions to wait on (ids or names), 1-32"`
	ReaderID   int      `json:"reader_id,omitempty" jsonschema:"reader whose cursor is read in each session (default 0)"`
	WaitParams
	ReadParams
}

// WaitSessionsResult is the session that ended the wait, read like
// read_output, and the states of the others.
type WaitSessionsResult struct {
	ReadResult
	Others []SessionState `json:"others" jsonschema:"the other sessions as they are now"`
}

// SessionState is a session's state in wait_sessions's reply.
type SessionState struct {
	SessionID string   `json:"session_id"`
	State     string   `json:"state"`
	ExitCode  *int     `json:"exit_code,omitempty"`
	Signal    string   `json:"signal,omitempty"`
	Pending   int64    `json:"pending_bytes" jsonschema:"output this reader has not read yet"`
	Listening []Socket `json:"listening,omitempty"`
}
