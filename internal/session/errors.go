package session

import "errors"

// Sentinel errors the tool layer maps to messages that tell the agent what
// to do next.
var (
	ErrSessionNotFound = errors.New("session not found")
	ErrReaderNotFound  = errors.New("reader not found")
	ErrTooManySessions = errors.New("too many sessions")
	ErrCommandNotFound = errors.New("command not found")
	ErrTooManyFiles    = errors.New("too many open files")
	ErrBadCwd          = errors.New("bad working directory")
	ErrBadArgs         = errors.New("invalid arguments")
	ErrExited          = errors.New("process has exited")
	ErrRunning         = errors.New("process is still running")
	ErrNotPTY          = errors.New("not a PTY session")
	ErrInputStalled    = errors.New("program is not reading its input")
	ErrClosed          = errors.New("server is shutting down")
	ErrInputTooLarge   = errors.New("input too large")
	ErrLineTooLong     = errors.New("line too long for the terminal")
	ErrStdinClosed     = errors.New("stdin is closed")
)
