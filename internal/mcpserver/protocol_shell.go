package mcpserver

// Wire types of open_shell, exec_command, await_command, retry_command and diff_commands: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

// RetryInput are retry_command's arguments.
type RetryInput struct {
	SessionID       string `json:"session_id" jsonschema:"shell session id or name"`
	Command         string `json:"command"`
	MaxRetries      *int   `json:"max_retries,omitempty" jsonschema:"default 3, cap 20"`
	Backoff         string `json:"backoff,omitempty" jsonschema:"fixed, linear or exponential (default)"`
	DelayMs         *int   `json:"delay_ms,omitempty" jsonschema:"default 1000, cap 60000"`
	SuccessExitCode *int   `json:"success_exit_code,omitempty" jsonschema:"default 0"`
	SuccessPattern  string `json:"success_pattern,omitempty" jsonschema:"RE2 regex the output must match too"`
	ExecLimits
}

// Attempt is one try of retry_command.
type Attempt struct {
	Attempt     int     `json:"attempt"`
	DelayMs     float64 `json:"delay_ms" jsonschema:"pause before this attempt"`
	ExitCode    *int    `json:"exit_code,omitempty"`
	State       string  `json:"state"`
	Matched     *bool   `json:"matched,omitempty" jsonschema:"success_pattern matched the output"`
	Success     bool    `json:"success"`
	DurationMs  float64 `json:"duration_ms"`
	OutputLines int     `json:"output_lines"`
}

// RetryResult is retry_command's result.
type RetryResult struct {
	Success  bool       `json:"success"`
	Attempts int        `json:"attempts"`
	Last     ExecResult `json:"last" jsonschema:"the last attempt in full"`
	History  []Attempt  `json:"history"`
	Hint     string     `json:"hint,omitempty"`
}

// DiffInput are diff_commands's arguments.
type DiffInput struct {
	SessionID    string `json:"session_id" jsonschema:"shell session id or name"`
	CommandA     string `json:"command_a"`
	CommandB     string `json:"command_b"`
	ContextLines *int   `json:"context_lines,omitempty" jsonschema:"default 3"`
	TimeoutMs    *int   `json:"timeout_ms,omitempty" jsonschema:"per command (default 30000)"`
	MaxLines     *int   `json:"max_lines,omitempty" jsonschema:"default 400; 0 = all"`
}

// DiffResult is diff_commands's result.
type DiffResult struct {
	Identical bool       `json:"identical"`
	Diff      string     `json:"diff" jsonschema:"unified diff, A = command_a, B = command_b"`
	DiffLines int        `json:"diff_lines"`
	Truncated bool       `json:"truncated"`
	A         ExecResult `json:"result_a" jsonschema:"command_a's result (output omitted)"`
	B         ExecResult `json:"result_b" jsonschema:"command_b's result (output omitted)"`
}

// OpenShellInput are open_shell's arguments.
type OpenShellInput struct {
	Shell     string            `json:"shell,omitempty" jsonschema:"bash, zsh, sh, pwsh, cmd or a path (default $SHELL)"`
	Cwd       string            `json:"cwd,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Rows      int               `json:"rows,omitempty"`
	Cols      int               `json:"cols,omitempty"`
	Name      string            `json:"name,omitempty"`
	NoRC      bool              `json:"no_rc,omitempty" jsonschema:"skip the rc files"`
	TimeoutMs *int              `json:"timeout_ms,omitempty" jsonschema:"wait for the first prompt (default 10000)"`
	SSHParams
}

// OpenShellResult is open_shell's result.
type OpenShellResult struct {
	SessionID string `json:"session_id"`
	Name      string `json:"name"`
	Shell     string `json:"shell" jsonschema:"bash, zsh, sh, pwsh or cmd"`
	Path      string `json:"path"`
	PID       int    `json:"pid"`
	Cwd       string `json:"cwd"`
	Banner    string `json:"banner,omitempty" jsonschema:"what the shell printed before its first prompt"`
	Host      string `json:"host,omitempty" jsonschema:"user@host:port of a remote shell"`
}

// ExecInput are exec_command's arguments.
type ExecInput struct {
	SessionID string `json:"session_id" jsonschema:"shell session id or name (from open_shell)"`
	Command   string `json:"command" jsonschema:"shell text: pipes, heredocs, several lines"`
	ExecLimits
}

// ExecLimits are the wait and output limits of shell commands.
type ExecLimits struct {
	TimeoutMs *int     `json:"timeout_ms,omitempty" jsonschema:"default 30000, cap 60000; the command runs on"`
	MaxLines  *int     `json:"max_lines,omitempty" jsonschema:"head and tail kept (default 200; 0 = all)"`
	MaxBytes  int      `json:"max_bytes,omitempty" jsonschema:"default 262144"`
	ReturnOn  []string `json:"return_on,omitempty" jsonschema:"input, exit (default both)"`
}

// ExecResult is what a shell command did.
type ExecResult struct {
	SessionID     string  `json:"session_id"`
	CommandID     int     `json:"command_id"`
	Output        string  `json:"output" jsonschema:"the command's own output (no echo, no prompt), escape sequences removed; empty when output_in is content"`
	OutputIn      string  `json:"output_in,omitempty" jsonschema:"content: a long output was sent once, as the first text content block, and output is empty"`
	ExitCode      *int    `json:"exit_code,omitempty" jsonschema:"set when the command finished"`
	Cwd           string  `json:"cwd" jsonschema:"the shell's directory after the command (while running: before it)"`
	DurationMs    float64 `json:"duration_ms"`
	TimedOut      bool    `json:"timed_out"`
	Running       bool    `json:"running" jsonschema:"the command is still running"`
	State         string  `json:"state" jsonschema:"done, running, awaiting_input, awaiting_password, or shell_exited"`
	StateDetail   string  `json:"state_detail,omitempty"`
	ShellExitCode *int    `json:"shell_exit_code,omitempty" jsonschema:"the shell itself exited (exit, set -e) with this code"`
	ShellSignal   string  `json:"shell_signal,omitempty"`
	OutputBytes   int64   `json:"output_bytes" jsonschema:"raw bytes the command printed (so far)"`
	OutputLines   int     `json:"output_lines" jsonschema:"lines of output before any cut"`
	Truncated     bool    `json:"truncated"`
	OmittedLines  int     `json:"omitted_lines,omitempty"`
	OmittedBytes  int     `json:"omitted_bytes,omitempty"`
	Hint          string  `json:"hint,omitempty"`
}

// AwaitInput are await_command's arguments.
type AwaitInput struct {
	SessionID string `json:"session_id" jsonschema:"shell session id or name"`
	ExecLimits
}
