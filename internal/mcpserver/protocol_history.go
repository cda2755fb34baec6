package mcpserver

// Wire types of get_history, search_output, list_messages and get_message: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

import "time"

// HistoryInput are get_history's arguments.
type HistoryInput struct {
	SessionID  string `json:"session_id" jsonschema:"session id (or a live session's name)"`
	Lines      int    `json:"lines,omitempty" jsonschema:"how many lines (default 100; with grep: the window scanned, default the whole transcript), at most 10000"`
	FromEnd    int64  `json:"from_end,omitempty" jsonschema:"skip this many newest lines: the window ends this many lines before the end"`
	StartLine  int64  `json:"start_line,omitempty" jsonschema:"absolute range: first line (1-based); lines counts from here"`
	Grep       string `json:"grep,omitempty" jsonschema:"RE2 regex: return only matching lines (plus context)"`
	Context    int    `json:"context,omitempty" jsonschema:"with grep: lines of context before and after each match, 0-50"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"with grep: newest matches kept (default 50)"`
	MaxBytes   int    `json:"max_bytes,omitempty" jsonschema:"text returned, default 256 KiB, at most 4 MiB"`
	StripANSI  *bool  `json:"strip_ansi,omitempty" jsonschema:"strip escape sequences (default true)"`
}

// HistoryResult is get_history's result.
type HistoryResult struct {
	SessionID  string        `json:"session_id"`
	Lines      []HistoryLine `json:"lines"`
	TotalLines int64         `json:"total_lines"`
	FirstLine  int64         `json:"first_line"`
	LastLine   int64         `json:"last_line"`
	LostLines  int64         `json:"lost_lines,omitempty"`
	Truncated  bool          `json:"truncated"`
	Matches    *int          `json:"matches,omitempty"`
	grep       bool
}

// SearchInput are search_output's arguments.
type SearchInput struct {
	Pattern      string   `json:"pattern" jsonschema:"RE2 regex matched against each clean output line"`
	SessionIDs   []string `json:"session_ids,omitempty" jsonschema:"only these sessions (default: all, newest first)"`
	Since        string   `json:"since,omitempty" jsonschema:"only sessions started since: an RFC 3339 time or a duration ago such as 2h"`
	MaxResults   int      `json:"max_results,omitempty" jsonschema:"matches returned, default 50, at most 1000"`
	MaxScanBytes int64    `json:"max_scan_bytes,omitempty" jsonschema:"output bytes read before stopping, default 1 GiB"`
}

// SearchMatch is one line search_output found.
type SearchMatch struct {
	SessionID string    `json:"session_id"`
	Line      int64     `json:"line"`
	Text      string    `json:"text"`
	Time      time.Time `json:"time"`
}

// SearchResult is search_output's result.
type SearchResult struct {
	Matches      []SearchMatch `json:"matches"`
	Count        int           `json:"count"`
	ScannedBytes int64         `json:"scanned_bytes"`
	Complete     bool          `json:"complete"`
}

// ListMessagesInput are list_messages's arguments.
type ListMessagesInput struct {
	SessionID    string   `json:"session_id" jsonschema:"session id (live or past)"`
	AfterID      int64    `json:"after_id,omitempty" jsonschema:"only messages after this id (paging: the previous result's next_after_id)"`
	Limit        int      `json:"limit,omitempty" jsonschema:"messages returned, default 50, at most 500"`
	Types        []string `json:"types,omitempty" jsonschema:"only these types: input, output, event"`
	PreviewBytes int      `json:"preview_bytes,omitempty" jsonschema:"content bytes shown per message, default 200, at most 4096"`
}

// MessageInfo describes one record.
type MessageInfo struct {
	ID       int64     `json:"id"`
	Type     string    `json:"type"`
	Time     time.Time `json:"time"`
	Size     int64     `json:"size"`
	Offset   int64     `json:"offset"`
	Stream   string    `json:"stream,omitempty"`
	Event    string    `json:"event,omitempty"`
	From     string    `json:"from,omitempty"`
	Redacted bool      `json:"redacted,omitempty"`
	Content  string    `json:"content"`
	// More says the content shown is a prefix of the record.
	More bool `json:"more,omitempty"`
}

// ListMessagesResult is list_messages's result.
type ListMessagesResult struct {
	SessionID   string        `json:"session_id"`
	Messages    []MessageInfo `json:"messages"`
	HasMore     bool          `json:"has_more"`
	NextAfterID int64         `json:"next_after_id"`
}

// GetMessageInput are get_message's arguments.
type GetMessageInput struct {
	SessionID  string  `json:"session_id" jsonschema:"session id (live or past)"`
	MessageID  int64   `json:"message_id,omitempty" jsonschema:"id from list_messages"`
	MessageIDs []int64 `json:"message_ids,omitempty" jsonschema:"several ids at once (at most 50)"`
	Offset     int64   `json:"offset,omitempty" jsonschema:"byte offset into each content (paging)"`
	MaxBytes   int64   `json:"max_bytes,omitempty" jsonschema:"content bytes returned per message, default 64 KiB, at most 4 MiB in all"`
	StripANSI  *bool   `json:"strip_ansi,omitempty" jsonschema:"output: strip escape sequences (default true)"`
}

// FullMessage is one record with its content from ContentOffset.
type FullMessage struct {
	MessageInfo
	ContentOffset int64 `json:"content_offset"`
}

// GetMessageResult is get_message's result.
type GetMessageResult struct {
	SessionID string        `json:"session_id"`
	Messages  []FullMessage `json:"messages"`
}

// HistoryLine is one line of get_history: the wire form of history.Line.
type HistoryLine struct {
	N     int64  `json:"n"`
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}
