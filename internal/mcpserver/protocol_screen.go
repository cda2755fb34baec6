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
	ReaderID    int      `json:"reader_id,omitempty" jsonschema:"reader whose last screen changed_only compares with (default 0)"`
	ChangedOnly bool     `json:"changed_only,omitempty" jsonschema:"return only the rows whose text (with attrs: or style) changed since this reader's last read_screen (all rows the first time and after a resize)"`
	Scrollback  int      `json:"scrollback,omitempty" jsonschema:"also return up to this many lines that scrolled off the top of the main screen, oldest first (0-100, default 0)"`
	Attrs       bool     `json:"attrs,omitempty" jsonschema:"also return colours and attributes: per row, runs [col, len, style] of cells unlike the screen's base style, e.g. [2, 8, \"reverse fg=red bg=236\"] (at most 20 per row)"`
	TimeoutMs   *int     `json:"timeout_ms,omitempty" jsonschema:"hard deadline in ms; 0 = return the screen now; capped at 60000 (default 5000)"`
	Until       string   `json:"until,omitempty" jsonschema:"RE2 regex over the screen text (rows joined by newlines, ^ and $ matching at row ends); returns as soon as the screen shows it"`
	SettleMs    *int     `json:"settle_ms,omitempty" jsonschema:"return once the screen has not changed for this many ms (counted from the last output, which may be before the call); 0 = off (default 300)"`
	ReturnOn    []string `json:"return_on,omitempty" jsonschema:"events that end the wait besides timeout_ms, as in read_output (default all): match, input, settle, exit"`
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
