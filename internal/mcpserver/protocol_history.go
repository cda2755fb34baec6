package mcpserver

// Wire types of get_history, search_output, list_messages and get_message: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

import "time"

// HistoryInput are get_history's arguments.
type HistoryInput struct {
	SessionID  string `json:"session_id" jsonschema:"session id (or a live session's name)"`
	Lines      int    `json:"lines,omitempty" jsonschema:"default 100, max 10000"`
	FromEnd    int64  `json:"from_end,omitempty" jsonschema:"end this many lines before the end"`
	StartLine  int64  `json:"start_line,omitempty" jsonschema:"1-based first line"`
	Grep       string `json:"grep,omitempty" jsonschema:"RE2: matching lines only"`
	Context    int    `json:"context,omitempty" jsonschema:"lines around each match, 0-50"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"newest kept (default 50)"`
	MaxBytes   int    `json:"max_bytes,omitempty" jsonschema:"default 256 KiB"`
	StripANSI  *bool  `json:"strip_ansi,omitempty"`
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
	Pattern      string   `json:"pattern" jsonschema:"RE2 regex over clean lines"`
	SessionIDs   []string `json:"session_ids,omitempty" jsonschema:"only these"`
	Since        string   `json:"since,omitempty" jsonschema:"RFC 3339 time or duration ago (2h)"`
	MaxResults   int      `json:"max_results,omitempty" jsonschema:"default 50"`
	MaxScanBytes int64    `json:"max_scan_bytes,omitempty" jsonschema:"default 1 GiB"`
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
	AfterID      int64    `json:"after_id,omitempty" jsonschema:"page: the last next_after_id"`
	Limit        int      `json:"limit,omitempty" jsonschema:"default 50, max 500"`
	Types        []string `json:"types,omitempty" jsonschema:"input, output, event"`
	PreviewBytes int      `json:"preview_bytes,omitempty" jsonschema:"default 200"`
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
	MessageID  int64   `json:"message_id,omitempty"`
	MessageIDs []int64 `json:"message_ids,omitempty" jsonschema:"up to 50"`
	Offset     int64   `json:"offset,omitempty" jsonschema:"byte offset (paging)"`
	MaxBytes   int64   `json:"max_bytes,omitempty" jsonschema:"per message (default 64 KiB)"`
	StripANSI  *bool   `json:"strip_ansi,omitempty"`
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
