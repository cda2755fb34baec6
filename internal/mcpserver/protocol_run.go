package mcpserver

// Wire types of run_command: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

// RunInput are run_command's arguments.
type RunInput struct {
	Argv               []string          `json:"argv" jsonschema:"program and arguments"`
	Cwd                string            `json:"cwd,omitempty"`
	Env                map[string]string `json:"env,omitempty"`
	Stdin              string            `json:"stdin,omitempty" jsonschema:"text written to stdin"`
	TimeoutMs          *int              `json:"timeout_ms,omitempty" jsonschema:"kill the tree after (default 30000, max 600000)"`
	MaxOutputBytes     int               `json:"max_output_bytes,omitempty" jsonschema:"per stream (default 102400)"`
	SuccessExitCode    *int              `json:"success_exit_code,omitempty" jsonschema:"default 0"`
	AnyExitCode        bool              `json:"any_exit_code,omitempty" jsonschema:"every exit code is success"`
	SuccessFile        string            `json:"success_file,omitempty" jsonschema:"must exist after the run"`
	SuccessFilePattern string            `json:"success_file_pattern,omitempty" jsonschema:"RE2 regex success_file must match"`
	Parse              *bool             `json:"parse,omitempty" jsonschema:"parse git and which output into JSON (default true)"`
	ParseOnly          bool              `json:"parse_only,omitempty" jsonschema:"omit stdout text that was parsed"`
	Summary            bool              `json:"summary,omitempty" jsonschema:"a one-line summary instead of stdout"`
	Page               *int              `json:"page,omitempty" jsonschema:"0-based page of stdout lines"`
	PageSize           int               `json:"page_size,omitempty" jsonschema:"default 100"`
	Interactive        bool              `json:"interactive,omitempty" jsonschema:"run to the end on a terminal in this call; the user answers its prompts (elicitation), passwords on a private page"`
	MaxRounds          int               `json:"max_rounds,omitempty" jsonschema:"interactive: most questions (default 50)"`
	Mode               string            `json:"mode,omitempty" jsonschema:"interactive: pty (default) or pipe"`
	Until              string            `json:"until,omitempty" jsonschema:"interactive: also ask when new output matches (RE2)"`
	SettleMs           *int              `json:"settle_ms,omitempty" jsonschema:"interactive: also ask after this many quiet ms"`
	SSHParams
}

// RunResult is run_command's result.
type RunResult struct {
	OK         bool      `json:"ok" jsonschema:"every success check held"`
	Argv       []string  `json:"argv"`
	Cwd        string    `json:"cwd"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	Signal     string    `json:"signal,omitempty"`
	TimedOut   bool      `json:"timed_out"`
	DurationMs float64   `json:"duration_ms"`
	Stdout     Stream    `json:"stdout"`
	Stderr     Stream    `json:"stderr"`
	Parsed     *Parsed   `json:"parsed,omitempty" jsonschema:"structured stdout for supported commands"`
	Summary    string    `json:"summary,omitempty"`
	Checks     []Check   `json:"checks"`
	Page       *PageInfo `json:"page,omitempty"`
	Hint       string    `json:"hint,omitempty"`
	SessionID  string    `json:"session_id,omitempty" jsonschema:"interactive: the session holding the transcript"`
	Rounds     *int      `json:"rounds,omitempty" jsonschema:"interactive: questions the user answered"`
	Note       string    `json:"note,omitempty" jsonschema:"interactive: why the program was killed"`
}

// Stream is one captured output stream of run_command: the wire form of
// runner.Stream.
type Stream struct {
	Text         string `json:"text"`
	Bytes        int64  `json:"bytes" jsonschema:"bytes the program wrote to this stream"`
	Lines        int64  `json:"lines" jsonschema:"lines the program wrote (a final unterminated line counts)"`
	Truncated    bool   `json:"truncated"`
	OmittedBytes int64  `json:"omitted_bytes,omitempty" jsonschema:"bytes left out of the middle of text"`
}

// Check is one success criterion of run_command and whether it held.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// PageInfo locates a page of run_command's stdout lines.
type PageInfo struct {
	Page       int   `json:"page"`
	PageSize   int   `json:"page_size"`
	TotalLines int64 `json:"total_lines"`
	HasNext    bool  `json:"has_next"`
	Clipped    bool  `json:"clipped,omitempty" jsonschema:"the page was cut at 4 MiB (very long lines)"`
}
