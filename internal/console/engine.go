// Package console is the person's API to agentty's sessions: the /v1/
// routes that `agentty ls/attach/logs/kill/export` and the web view use,
// behind the authentication of whichever front end mounts it (the daemon's
// unix socket checks the peer uid, HTTP the bearer token or login cookie).
//
//	GET  /v1/sessions                  list: live sessions, then recent past ones
//	GET  /v1/sessions/{id}             one session (404 if unknown)
//	GET  /v1/sessions/{id}/log         text/plain; since_line=N, raw=1, follow=1
//	POST /v1/sessions/{id}/kill        terminate the tree; returns the session
//	GET  /v1/sessions/{id}/export      format=cast (asciicast v2) or text
//	GET  /v1/search?q=RE&session_id=   matching lines of recorded output
//	GET  /v1/sessions/{id}/stream      WebSocket, subprotocol agentty.v1 (stream.go)
//
// Errors are {"error": "..."} with a 4xx or 5xx status. The package knows
// the engine only through Engine, which internal/server implements over the
// session manager and the transcript store.
package console

import (
	"context"
	"errors"

	"github.com/agentty/agentty/internal/cast"
	"github.com/agentty/agentty/internal/console/api"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/record"
)

// Engine is what the console needs of the server core.
type Engine interface {
	// List returns the live sessions, oldest first, then recent past ones
	// (recorded by the transcript store), newest first.
	List() ([]Entry, error)
	// Get returns one session, live or past.
	Get(id string) (Entry, error)
	// Terminal opens a session's output and, while it runs, its keyboard.
	Terminal(id string) (Terminal, error)
	// Kill terminates a live session's process tree and returns it ended.
	Kill(ctx context.Context, id string) (Entry, error)
	// Recording returns a session's transcript for export.
	Recording(id string) (cast.Recording, error)
	// Search finds lines of recorded output matching the regular
	// expression q (in one session when sessionID is set).
	Search(q, sessionID string) (SearchResult, error)
}

// Errors an Engine wraps so the console answers with the right status.
var (
	ErrNotFound = errors.New("not found")   // 404
	ErrBadArgs  = errors.New("bad request") // 400
	ErrConflict = errors.New("conflict")    // 409: the session's state forbids it
)

// Entry is a session as the engine reports it.
type Entry struct {
	record.Info
	Live bool // held by this server (else a past session from the store)
}

// Terminal is one session's output and keyboard.
type Terminal interface {
	// Output is the session's output log: retained history, then live.
	Output() outlog.Log
	// Mode is pty or pipe: pipe output keeps stdout and stderr apart.
	Mode() record.Mode
	// Done is closed once the session has ended.
	Done() <-chan struct{}
	// Status is how it ended, nil while it runs.
	Status() *record.ExitStatus
	// Watch returns a channel closed at the next lease or size change.
	Watch() <-chan struct{}
	// Holder is who holds the keyboard, "" when agents may type.
	Holder() string
	// Size is the terminal size (0, 0 for pipes).
	Size() (rows, cols int)
	// Type writes a person's keystrokes, taking the keyboard for who.
	Type(who string, p []byte) error
	// Take gives the keyboard to who without typing.
	Take(who string) error
	// Release hands it back to agents if who holds it; why is recorded.
	Release(who, why string)
	// Resize changes the terminal size.
	Resize(rows, cols int) error
}

// SearchResult and Match are the wire form of a search.
type (
	SearchResult = api.SearchResult
	Match        = api.Match
)

// Mark returns err answered with kind's status (ErrNotFound, ErrBadArgs,
// ErrConflict) while reading as err itself.
func Mark(err error, kind error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, kind: kind}
}

type marked struct{ err, kind error }

func (m *marked) Error() string        { return m.err.Error() }
func (m *marked) Unwrap() error        { return m.err }
func (m *marked) Is(target error) bool { return target == m.kind }
