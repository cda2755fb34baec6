package record

import "time"

// Recorder observes what happens to sessions so a durable store can keep a
// transcript beside the output log. Every method is called synchronously
// from the engine (Start, Send, Resize, Terminate, the exit goroutine), so
// an implementation must only queue the event and return: it must never
// wait on disk, except in Exited.
type Recorder interface {
	// Started is called once the process runs (its pid is known).
	Started(r Start)
	// Input is called just before input is written (so the transcript
	// lists it before the output it causes). Redacted is true when the
	// terminal had echo off (a password prompt); data is then not to be
	// kept. From names who sent it: the agent's MCP client, a person
	// ("attach", "web", FromPerson), "" if unknown.
	Input(id string, data []byte, redacted bool, from string)
	// Resized is called after a PTY got a new size.
	Resized(id string, rows, cols int)
	// Signaled is called just before agentty sends a signal to the session (a
	// terminate request or a pipe-mode control key).
	Signaled(id string, signal string)
	// Exited is called once with the final status, from the exit
	// goroutine, after the last output was appended and before any reader
	// is told the session exited. A durable store returns once the status
	// and that output are stored (bounded), so whatever a reader saw as
	// exited survives a crash of the server.
	Exited(id string, st ExitStatus, at time.Time)
}

// FromPerson is the sender of what the person answered when agentty asked
// them (an elicitation form, the secret page): it passed through the MCP
// client or a browser, but the agent did not write it.
const FromPerson = "person"

// Start describes a started session for a Recorder.
type Start struct {
	ID      string
	Name    string
	Command string
	Argv    []string
	Cwd     string
	EnvKeys []string
	Mode    Mode
	Host    string // remote host (user@host:port) or "" for local
	PID     int
	Rows    int
	Cols    int
	Started time.Time
}
