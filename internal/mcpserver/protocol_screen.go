package mcpserver

// Wire types of read_screen: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

// RowAttrs are one row's runs of non-default colours and attributes.
type RowAttrs struct {
	Row  int   `json:"row"`
	Runs []Run `json:"runs"`
	More int   `json:"more,omitempty" jsonschema:"runs left out of this row after the first 20"`
}

// ScreenInput are read_screen's arguments.
type ScreenInput struct {
	SessionID   string   `json:"session_id" jsonschema:"session id (or name)"`
	ReaderID    int      `json:"reader_id,omitempty" jsonschema:"reader whose last screen changed_only compares with"`
	ChangedOnly bool     `json:"changed_only,omitempty" jsonschema:"only rows changed since that read"`
	Scrollback  int      `json:"scrollback,omitempty" jsonschema:"also lines above the screen (0-100)"`
	Attrs       bool     `json:"attrs,omitempty" jsonschema:"also colours and attributes"`
	TimeoutMs   *int     `json:"timeout_ms,omitempty"`
	Until       string   `json:"until,omitempty" jsonschema:"RE2 regex over the screen text"`
	SettleMs    *int     `json:"settle_ms,omitempty"`
	ReturnOn    []string `json:"return_on,omitempty"`
}

// ChangedRow is one row that changed since the reader's last screen.
type ChangedRow struct {
	Row  int    `json:"row" jsonschema:"0-based row from the top"`
	Text string `json:"text"`
}

// ScreenResult is read_screen's result.
type ScreenResult struct {
	SessionID    string       `json:"session_id"`
	Rows         int          `json:"rows"`
	Cols         int          `json:"cols"`
	Lines        []string     `json:"lines,omitempty" jsonschema:"the visible screen, one string per row from the top, trailing blanks trimmed; empty rows at the bottom are left out (rows gives the height)"`
	ChangedOnly  bool         `json:"changed_only,omitempty"`
	Changed      []ChangedRow `json:"changed,omitempty" jsonschema:"with changed_only: the rows whose text changed"`
	Cursor       Cursor       `json:"cursor" jsonschema:"0-based cursor row (index into lines) and column, and whether it is shown"`
	AltScreen    bool         `json:"alt_screen" jsonschema:"a full-screen program is drawing on the alternate screen"`
	Title        string       `json:"title,omitempty" jsonschema:"window title the program set"`
	Scrollback   []string     `json:"scrollback,omitempty" jsonschema:"lines above the screen, oldest first"`
	AttrsBase    string       `json:"attrs_base,omitempty" jsonschema:"with attrs, when most cells are not in the default style: their style; attrs then lists the cells that differ from it (unstyled ones as \"default\")"`
	Attrs        []RowAttrs   `json:"attrs,omitempty" jsonschema:"with attrs: the rows (of lines, or with changed_only of changed) with cells in another style than attrs_base (default: unstyled)"`
	Reason       string       `json:"reason" jsonschema:"why the call returned: matched, awaiting_input, exited, settled, timeout, no_wait, cancelled"`
	State        string       `json:"state" jsonschema:"running, awaiting_input, awaiting_password or exited"`
	StateDetail  string       `json:"state_detail,omitempty"`
	ExitCode     *int         `json:"exit_code,omitempty"`
	Signal       string       `json:"signal,omitempty"`
	Match        string       `json:"match,omitempty" jsonschema:"screen text the until regex matched"`
	LostBytes    int64        `json:"lost_bytes,omitempty" jsonschema:"output evicted before it was rendered: parts of the screen may be stale"`
	PendingBytes int64        `json:"pending_bytes,omitempty" jsonschema:"output not rendered yet: call read_screen again"`
	ElapsedMs    float64      `json:"elapsed_ms"`
}

// Cursor is read_screen's cursor: the wire form of screen.Cursor.
type Cursor struct {
	Row     int  `json:"row"`
	Col     int  `json:"col"`
	Visible bool `json:"visible"`
}
