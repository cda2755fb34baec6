package gate

import (
	"strings"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// The gate writes the audit log: its decisions and their records are one
// flow (a refusal is recorded with the rule that refused, a confirmation
// with the human's answer, an admitted command before it runs), and the
// front end only says who the client is.

// Audited reports whether there is an audit log, so a caller can skip
// gathering what only the log would show.
func (g *Gate) Audited() bool { return g.audit != nil }

// Record writes e to the audit log; a failed write is logged, not
// returned, so the call it describes goes on.
func (g *Gate) Record(e audit.Event) {
	if err := g.audit.Write(e); err != nil {
		g.log.Error("audit log write failed", "event", e.Event, "err", err)
	}
}

// Started writes the start event of a session client started.
func (g *Gate) Started(client string, s *session.Session) {
	g.Record(audit.Event{Event: audit.EventStart, Session: s.ID, Client: client, Command: s.Command, Cwd: s.Cwd, PID: s.PID(),
		Detail: map[string]string{"mode": string(s.Mode), "argv": strings.Join(s.Argv, " ")}})
}

// Typed writes the input event of in, typed into s while it was in state
// (read before the input was sent); text typed while the terminal's echo
// is off (a password prompt) is redacted.
func (g *Gate) Typed(client string, s *session.Session, in Input, state record.State) {
	if g.audit == nil {
		return
	}
	echoOff := state == record.StateAwaitingPassword
	input, red := audit.InputText(in.Text, echoOff)
	if len(in.Keys) > 0 {
		input += " [keys " + strings.Join(in.Keys, " ") + "]"
	}
	if in.Enter {
		input += " [enter]"
	}
	if in.EOF {
		input += " [eof]"
	}
	input = strings.TrimPrefix(input, " ")
	g.Record(audit.Event{Event: audit.EventInput, Session: s.ID, Client: client, Input: input, Redacted: red, PID: s.PID()})
}

// RecordExit is a session.Config.OnExit hook that writes exit events.
func RecordExit(a *audit.Log, next func(*session.Session)) func(*session.Session) {
	return func(s *session.Session) {
		if a != nil {
			e := audit.Event{Event: audit.EventExit, Session: s.ID, Command: s.Command, Cwd: s.Cwd, PID: s.PID()}
			if st := s.Status(); st != nil {
				code := st.Code
				e.Exit, e.Signal = &code, st.Signal
			}
			if by := s.EndedBy(); by != "" {
				e.Reason = by
			}
			_ = a.Write(e)
		}
		if next != nil {
			next(s)
		}
	}
}
