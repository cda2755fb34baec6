// Package api holds the wire types of the person's console API (/v1/): what
// the server (internal/console) sends and its clients (internal/console/client,
// the web page) read. It imports nothing of the engine, so a client can.
package api

import "time"

// Session is a session as GET /v1/sessions and GET /v1/sessions/{id} show it.
type Session struct {
	ID       string    `json:"id"`
	Name     string    `json:"name,omitempty"`
	State    string    `json:"state"`
	Command  string    `json:"command"`
	Host     string    `json:"host"`
	Mode     string    `json:"mode"`
	Started  time.Time `json:"started"`
	AgeS     int64     `json:"age_s"`
	Holder   string    `json:"holder"` // who holds the keyboard: attach, web; "" agents may type
	ExitCode *int      `json:"exit_code"`
	Signal   string    `json:"signal,omitempty"`
	// SignalNumber is Signal's number on the server's system, so a page
	// can say "killed by SIGTERM (signal 15)" without a table of its own.
	SignalNumber int   `json:"signal_number,omitempty"`
	Live         bool  `json:"live"` // run by this agentty (else a past session from the store)
	Rows         int   `json:"rows,omitempty"`
	Cols         int   `json:"cols,omitempty"`
	Lines        int64 `json:"lines"`
}

// Error is the body of every 4xx and 5xx answer.
type Error struct {
	Error string `json:"error"`
}

// Subprotocol is the WebSocket subprotocol of /v1/sessions/{id}/stream.
const Subprotocol = "agentty.v1"

// Channels: the first byte of a binary message from the server.
const (
	ChanStdout = 1 // the terminal, or stdout of a pipe session
	ChanStderr = 2
)

// Event is a text message of the stream, in either direction.
type Event struct {
	Type         string `json:"type"` // state, resize, lease, exit, error; from clients resize, take, release
	Rows         int    `json:"rows,omitempty"`
	Cols         int    `json:"cols,omitempty"`
	Holder       string `json:"holder"`
	ExitCode     *int   `json:"exit_code,omitempty"`
	Signal       string `json:"signal,omitempty"`
	SignalNumber int    `json:"signal_number,omitempty"` // exit only: as Session's
	Error        string `json:"error,omitempty"`
	// state only
	ID    string `json:"id,omitempty"`
	State string `json:"state,omitempty"`
	Mode  string `json:"mode,omitempty"`
	Watch bool   `json:"watch,omitempty"`
}

// SearchResult is what GET /v1/search returns.
type SearchResult struct {
	Matches  []Match `json:"matches"`
	Scanned  int64   `json:"scanned_bytes"`
	Complete bool    `json:"complete"`
}

// Match is one matching line.
type Match struct {
	SessionID string    `json:"session_id"`
	Line      int64     `json:"line"`
	Text      string    `json:"text"`
	Time      time.Time `json:"time"`
}
