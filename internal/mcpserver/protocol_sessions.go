package mcpserver

// Wire types of start_process, send_input, read_output, list_sessions, get_session_info, terminate_process, resize_pty, delete_session and the readers: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

import "time"

// WaitParams are the wait parameters every reading tool takes.
type WaitParams struct {
	TimeoutMs *int     `json:"timeout_ms,omitempty" jsonschema:"hard deadline in ms (cap 60000); 0 = do not wait"`
	Until     string   `json:"until,omitempty" jsonschema:"RE2 regex over new clean output (multi-line): return on a match"`
	SettleMs  *int     `json:"settle_ms,omitempty" jsonschema:"return after this many quiet ms; 0 = off"`
	ReturnOn  []string `json:"return_on,omitempty" jsonschema:"what ends the wait besides timeout_ms (default all): match, input, settle, exit, listening"`
	// UntilListening is true or a port number (schema set in bounds.go).
	UntilListening any `json:"until_listening,omitempty" jsonschema:"return when the program listens: true = any new socket, a number = that port; turns settle off"`
}

// ReadParams shape the output a reading tool returns.
type ReadParams struct {
	MaxBytes  int    `json:"max_bytes,omitempty" jsonschema:"default 65536, cap 8388608"`
	MaxLines  int    `json:"max_lines,omitempty" jsonschema:"default unlimited"`
	Overflow  string `json:"overflow,omitempty" jsonschema:"head_tail (default: keep both ends, report the middle), tail, or page (read on for more)"`
	StripANSI *bool  `json:"strip_ansi,omitempty" jsonschema:"remove escape sequences (default true)"`
	Stream    string `json:"stream,omitempty" jsonschema:"pipe mode: stdout, stderr or both"`
}

// StartInput are start_process's arguments.
type StartInput struct {
	Command     string            `json:"command,omitempty" jsonschema:"shell command line (/bin/sh -c)"`
	Argv        []string          `json:"argv,omitempty" jsonschema:"program and arguments, no shell"`
	Mode        string            `json:"mode,omitempty" jsonschema:"pty (default) or pipe (stdout and stderr kept apart)"`
	MergeStderr bool              `json:"merge_stderr,omitempty" jsonschema:"pipe mode: stderr into stdout, in exact order"`
	Cwd         string            `json:"cwd,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Rows        int               `json:"rows,omitempty" jsonschema:"default 40"`
	Cols        int               `json:"cols,omitempty" jsonschema:"default 120"`
	Name        string            `json:"name,omitempty" jsonschema:"a name to use as session_id"`
	Limits      *LimitsInput      `json:"limits,omitempty" jsonschema:"only tighter than configured (get_policy)"`
	Sandbox     *SandboxInput     `json:"sandbox,omitempty" jsonschema:"only tighter than configured; refused if the kernel lacks it"`
	SSHParams
	WaitParams
	ReadParams
}

// StartResult is start_process's result.
type StartResult struct {
	PID  int    `json:"pid"`
	Mode string `json:"mode"`
	Name string `json:"name,omitempty"`
	Host string `json:"host,omitempty" jsonschema:"user@host:port the session runs on (remote sessions)"`
	ReadResult
}

// SendInput are send_input's arguments.
type SendInput struct {
	SessionID string   `json:"session_id" jsonschema:"session id (or name)"`
	Text      string   `json:"text,omitempty" jsonschema:"typed first"`
	Keys      []string `json:"keys,omitempty" jsonschema:"key names after text, e.g. [\"ctrl+c\"], [\"up\",\"enter\"]"`
	Enter     bool     `json:"enter,omitempty" jsonschema:"press Enter last"`
	KeysApart bool     `json:"keys_apart,omitempty" jsonschema:"each key once the program waits again: for programs that drop typeahead (ranger)"`
	StdinEOF  bool     `json:"stdin_eof,omitempty" jsonschema:"close stdin (pipe) or send Ctrl+D (pty)"`
	ReaderID  int      `json:"reader_id,omitempty"`
	Echo      bool     `json:"echo,omitempty" jsonschema:"keep the echo of the typed line"`
	Secret    string   `json:"secret,omitempty" jsonschema:"ask_user: at awaiting_password the user types the secret on a private page; you never see it. Never type passwords yourself"`
	WaitParams
	ReadParams
}

// SendResult is send_input's result.
type SendResult struct {
	BytesSent int    `json:"bytes_sent"`
	Secret    string `json:"secret,omitempty" jsonschema:"with secret=ask_user: answered, declined, timed_out or url_given"`
	SecretURL string `json:"secret_url,omitempty" jsonschema:"url_given: the page to hand the user"`
	ReadResult
}

// ReadInput are read_output's arguments.
type ReadInput struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
	ReaderID  int    `json:"reader_id,omitempty" jsonschema:"see register_reader (default 0)"`
	Cursor    *int64 `json:"cursor,omitempty" jsonschema:"read from this byte cursor (reader not moved)"`
	SinceLine *int64 `json:"since_line,omitempty" jsonschema:"read after this line (reader not moved)"`
	WaitParams
	ReadParams
}

// ReadResult is what every reading tool returns.
type ReadResult struct {
	SessionID   string   `json:"session_id"`
	ReaderID    int      `json:"reader_id"`
	Output      string   `json:"output" jsonschema:"new output since the cursor (empty when output_in is content)"`
	OutputIn    string   `json:"output_in,omitempty" jsonschema:"content: a long output was sent once, as the first text content block, and output is empty"`
	Reason      string   `json:"reason" jsonschema:"why the call returned: matched, awaiting_input, exited, settled, timeout, no_wait, cancelled"`
	State       string   `json:"state" jsonschema:"running, awaiting_input, awaiting_password, exited, or lost (remote connection dropped; see lost_reason)"`
	StateDetail string   `json:"state_detail,omitempty" jsonschema:"how the state was decided (which process waits in which syscall)"`
	ExitCode    *int     `json:"exit_code,omitempty"`
	Signal      string   `json:"signal,omitempty" jsonschema:"signal that killed the process"`
	Match       string   `json:"match,omitempty" jsonschema:"text the until regex matched"`
	Cursor      int64    `json:"cursor" jsonschema:"absolute byte offset after this output; pass as cursor to read from here"`
	Line        int64    `json:"line" jsonschema:"complete lines before the cursor; pass as since_line to read from here"`
	Lines       int      `json:"lines" jsonschema:"lines in output"`
	Truncated   bool     `json:"truncated" jsonschema:"output was cut to max_bytes or max_lines"`
	Omitted     *Omitted `json:"omitted,omitempty" jsonschema:"the middle left out by head_tail: read it with cursor=from_cursor overflow=page"`
	HasMore     bool     `json:"has_more" jsonschema:"more output is available after cursor"`
	LostBytes   int64    `json:"lost_bytes,omitempty" jsonschema:"output gone before this reader got to it: evicted from memory (--no-store), or dropped from the transcript store by retention or a writer gap"`
	LostLines   int64    `json:"lost_lines,omitempty" jsonschema:"lines among lost_bytes (-1 if unknown)"`
	ElapsedMs   float64  `json:"elapsed_ms"`
	LostReason  string   `json:"lost_reason,omitempty" jsonschema:"state lost: why the remote connection ended"`
	TUI         bool     `json:"tui,omitempty" jsonschema:"the program draws a full-screen interface (alternate screen): read_screen shows it"`
	Listening   []Socket `json:"listening,omitempty" jsonschema:"listen waits: the sockets that ended the wait (reason listening), else all the program listens on"`
	Hint        string   `json:"hint,omitempty"`
}

// SessionRef names one session.
type SessionRef struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
}

// ListInput are list_sessions's arguments.
type ListInput struct {
	IncludeExited *bool  `json:"include_exited,omitempty" jsonschema:"default true (also past sessions)"`
	Since         string `json:"since,omitempty" jsonschema:"RFC 3339 time or duration ago (2h)"`
}

// ListResult is list_sessions's result.
type ListResult struct {
	Sessions []SessionInfo `json:"sessions"`
	Count    int           `json:"count"`
}

// TerminateInput are terminate_process's arguments.
type TerminateInput struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
	GraceMs   *int   `json:"grace_ms,omitempty" jsonschema:"SIGTERM to SIGKILL, 0-60000 (default 5000)"`
	Force     bool   `json:"force,omitempty" jsonschema:"SIGKILL at once"`
}

// ResizeInput are resize_pty's arguments.
type ResizeInput struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
	Rows      int    `json:"rows"`
	Cols      int    `json:"cols"`
}

// DeleteResult is delete_session's result.
type DeleteResult struct {
	SessionID string `json:"session_id"`
	Deleted   bool   `json:"deleted"`
}

// RegisterInput are register_reader's arguments.
type RegisterInput struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
	From      string `json:"from,omitempty" jsonschema:"start (default) or end"`
}

// ReaderResult is register_reader's and unregister_reader's result.
type ReaderResult struct {
	SessionID string `json:"session_id"`
	ReaderID  int    `json:"reader_id"`
	Cursor    int64  `json:"cursor,omitempty"`
	Removed   bool   `json:"removed,omitempty"`
}

// UnregisterInput are unregister_reader's arguments.
type UnregisterInput struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
	ReaderID  int    `json:"reader_id"`
}

// SessionInfo is a session as list_sessions and get_session_info show it.
type SessionInfo struct {
	ID          string       `json:"session_id"`
	Name        string       `json:"name,omitempty"`
	Command     string       `json:"command"`
	Argv        []string     `json:"argv"`
	Mode        string       `json:"mode"`
	Cwd         string       `json:"cwd"`
	EnvKeys     []string     `json:"env_keys,omitempty"`
	PID         int          `json:"pid"`
	State       string       `json:"state"`
	StateDetail string       `json:"state_detail,omitempty"`
	ExitCode    *int         `json:"exit_code,omitempty"`
	Signal      string       `json:"signal,omitempty"`
	EndedBy     string       `json:"ended_by,omitempty"` // idle_timeout, max_runtime, memory_limit, cpu_limit or file_size_limit
	StartedAt   time.Time    `json:"started_at"`
	ExitedAt    *time.Time   `json:"exited_at,omitempty"`
	UptimeMs    int64        `json:"uptime_ms"`
	IdleMs      int64        `json:"idle_ms"`
	Bytes       int64        `json:"bytes"`
	Lines       int64        `json:"lines"`
	Retained    int64        `json:"retained_bytes"`
	Evicted     int64        `json:"evicted_bytes"`
	TUI         bool         `json:"tui,omitempty"` // full-screen program (alternate screen): read_screen shows it
	Rows        int          `json:"rows,omitempty"`
	Cols        int          `json:"cols,omitempty"`
	Readers     []ReaderInfo `json:"readers"`
	Host        string       `json:"host,omitempty"`
	Holder      string       `json:"holder,omitempty" jsonschema:"a person typing (attach, web): input is refused until they stop"`
	LostAt      *time.Time   `json:"lost_at,omitempty"`
	LostReason  string       `json:"lost_reason,omitempty"`
	Listening   []Socket     `json:"listening,omitempty" jsonschema:"sockets the session's processes listen on"`
}

// ReaderInfo describes a cursor for get_session_info.
type ReaderInfo struct {
	ID      int   `json:"reader_id"`
	Cursor  int64 `json:"cursor"`
	Pending int64 `json:"pending_bytes"`
}

// Omitted describes output left out of the middle of a result. From and To
// are cursors: read_output with cursor=From and overflow=page returns it.
type Omitted struct {
	From  int64 `json:"from_cursor"`
	To    int64 `json:"to_cursor"`
	Bytes int64 `json:"bytes"`
	Lines int64 `json:"lines"`
}

// InfoResult wraps SessionInfo for the text rendering.
type InfoResult struct {
	SessionInfo
	// Containment is filled by get_session_info and terminate_process.
	Containment *ContainmentInfo `json:"containment,omitempty"`
}
