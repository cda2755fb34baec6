package record

// State is what a session's program is doing. The values are what agents
// read, so they never change.
type State string

// States.
const (
	// StateRunning: the program is computing, sleeping or waiting on
	// something other than its input.
	StateRunning State = "running"
	// StateAwaitingInput: the program is blocked reading its input.
	StateAwaitingInput State = "awaiting_input"
	// StateAwaitingPassword: blocked reading a line with echo off, which is
	// how password prompts read.
	StateAwaitingPassword State = "awaiting_password"
	// StateExited: the process ended and its exit status is known.
	StateExited State = "exited"
	// StateLost: the session's fate cannot be known. Its connection to the
	// remote host dropped, or (in the transcript store) it was recorded as
	// running and the agentty that ran it is gone.
	StateLost State = "lost"
)
