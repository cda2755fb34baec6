package mcpserver

import (
	"fmt"
	"strconv"
)

// The app-only tools' wire types (apps.go): only the terminal app calls
// them, through the host; the model never sees them.

// AppViewInput asks for a session's state and its raw output from Offset.
type AppViewInput struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
	Offset    int64  `json:"offset" jsonschema:"output offset to go on from (next of the last view); -1: the newest output"`
	// State and Holder are what the app shows now; a wait also ends when
	// either changes.
	State  string `json:"state,omitempty" jsonschema:"the state the app shows"`
	Holder string `json:"holder,omitempty" jsonschema:"the keyboard holder the app shows"`
	WaitMs int    `json:"wait_ms,omitempty" jsonschema:"wait up to this long for output or a change (0-20000)"`
}

// AppView is one step of the app's view of a session.
type AppView struct {
	SessionID string `json:"session_id"`
	Command   string `json:"command"`
	Mode      string `json:"mode"`
	State     string `json:"state"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	Signal    string `json:"signal,omitempty"`
	Rows      int    `json:"rows,omitempty"`
	Cols      int    `json:"cols,omitempty"`
	// Holder is who holds the keyboard: "chat" (this app), "attach",
	// "web", or "" when agents may type.
	Holder string `json:"holder,omitempty"`
	// Data is the raw output (escape sequences included) in [From, Next),
	// base64: a chunk may end inside a UTF-8 sequence.
	Data string `json:"data,omitempty"`
	From int64  `json:"from"`
	Next int64  `json:"next"`
	End  int64  `json:"end"`
	// Lost counts bytes evicted before the app read them.
	Lost  int64 `json:"lost,omitempty"`
	Ended bool  `json:"ended,omitempty"`
}

// Text is a line for a host that shows app calls; the output is not in it.
func (v AppView) Text() string {
	return fmt.Sprintf("session %s %s, %d output bytes from %d", v.SessionID, v.State, v.Next-v.From, v.From)
}

// AppInputInput is a person's keys, secret or release from the app.
type AppInputInput struct {
	SessionID string `json:"session_id" jsonschema:"session id (or name)"`
	Data      string `json:"data,omitempty" jsonschema:"keys as the terminal sends them; takes the keyboard"`
	Secret    string `json:"secret,omitempty" jsonschema:"at a no-echo prompt: the app's secret field, sent followed by Enter and never echoed"`
	Release   bool   `json:"release,omitempty" jsonschema:"hand the keyboard back to agents"`
}

// AppInputResult says who holds the keyboard after the input.
type AppInputResult struct {
	SessionID string `json:"session_id"`
	Holder    string `json:"holder,omitempty"`
	Bytes     int    `json:"bytes"`
}

// Text never carries what was typed.
func (r AppInputResult) Text() string {
	h := r.Holder
	if h == "" {
		h = "agents"
	}
	return "session " + r.SessionID + ": " + strconv.Itoa(r.Bytes) + " bytes typed; keyboard: " + h
}
