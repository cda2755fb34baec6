// Package record holds what the engine reports about a session as plain
// data: its snapshot (Info), its cursors, mode and state, how it ended, and
// what a Recorder is told. It sits below both the session engine and the
// transcript store, so the store keeps what sessions report without
// importing them. Front ends turn these into their own wire types: nothing
// here is shaped for a protocol.
package record

import (
	"time"

	"github.com/agentty/agentty/internal/ports"
)

// Mode selects how a program's bytes travel.
type Mode string

// Modes.
const (
	ModePTY  Mode = "pty"
	ModePipe Mode = "pipe"
)

// ExitStatus is how a process ended.
type ExitStatus struct {
	Code   int    // exit code; -1 when killed by a signal
	Signal string // signal name ("SIGKILL") when killed by a signal
	// Lost says why the ending is unknown (the remote connection dropped);
	// Code and Signal mean nothing then.
	Lost string
}

// Info is a snapshot of a session.
type Info struct {
	ID          string
	Name        string
	Command     string
	Argv        []string
	Mode        Mode
	Cwd         string
	EnvKeys     []string
	PID         int
	State       State
	StateDetail string // how the state was decided
	ExitCode    *int
	Signal      string
	EndedBy     string // idle_timeout or max_runtime when agentty ended it
	StartedAt   time.Time
	ExitedAt    *time.Time
	UptimeMs    int64
	IdleMs      int64
	Bytes       int64 // output bytes written so far
	Lines       int64
	Retained    int64 // output bytes still held
	Evicted     int64 // output bytes dropped from the front
	TUI         bool  // full-screen program (alternate screen)
	Rows        int
	Cols        int
	Readers     []ReaderInfo
	Host        string
	// Holder is who holds the keyboard ("attach", "web": a person typing;
	// agents' input is refused meanwhile), "" when nobody does.
	Holder string
	// Listening are the sockets the session's processes listen on (live
	// sessions whose host can list them).
	Listening []ports.Socket

	// LostAt and LostReason are set with StateLost: a session recorded as
	// running whose process or connection is gone (LostAt is when agentty
	// last saw it).
	LostAt     *time.Time
	LostReason string
}

// ReaderInfo describes one cursor into a session's output.
type ReaderInfo struct {
	ID      int
	Cursor  int64 // absolute byte offset the reader reads from next
	Pending int64 // bytes after the cursor
}
