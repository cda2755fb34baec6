package gate

import (
	"errors"
	"fmt"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/session"
)

// ReadLimit applies the server's max-read-bytes to a call's max_bytes:
// more than the limit is refused, none asked reads at most the limit.
func (g *Gate) ReadLimit(ro *session.ReadOptions, asked int) error {
	if g.maxRead <= 0 {
		return nil
	}
	if asked > g.maxRead {
		return fmt.Errorf("%w: max_bytes %d is over this server's limit of %d bytes per call (max-read-bytes); ask for less and read again from the returned cursor", session.ErrBadArgs, asked, g.maxRead)
	}
	if ro.MaxBytes <= 0 {
		ro.MaxBytes = min(session.DefaultMaxBytes, g.maxRead)
	}
	return nil
}

// LimitOf names the limit behind an engine error, for the audit log; ""
// when err is no limit's.
func LimitOf(err error) string {
	switch {
	case errors.Is(err, session.ErrTooManySessions):
		return "max-sessions"
	case errors.Is(err, session.ErrInputTooLarge):
		return "max-input-bytes"
	}
	return ""
}

// LimitRefused records a refusal by a limit (too many sessions, input too
// large, ...) of a call client made, and passes the error on.
func (g *Gate) LimitRefused(client, tool, sessionID, command, limit string, err error) error {
	g.Record(audit.Event{Event: audit.EventRefusal, Tool: tool, Session: sessionID, Client: client,
		Command: command, Rule: limit, Reason: err.Error()})
	return err
}
