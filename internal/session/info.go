package session

import (
	"time"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/record"
)

// Info describes the session now. Uptime of an exited session is how long
// it ran, not how long ago it started.
func (s *Session) Info() record.Info {
	state, p := s.State()
	st := s.log.Stats()
	in := record.Info{
		ID: s.ID, Name: s.Name, Command: s.Command, Argv: s.Argv, Mode: s.Mode, Cwd: s.Cwd,
		EnvKeys: s.EnvKeys, PID: s.PID(), State: state, StateDetail: p.Detail, StartedAt: s.Started,
		Bytes: st.End, Lines: st.Lines, Retained: st.Retained, Evicted: st.Start,
		Readers: s.Readers(),
	}
	in.Rows, in.Cols = s.proc.Size()
	in.Host = s.Host()
	in.TUI = s.TUI()
	in.Listening = s.Listening()
	end := time.Now()
	s.mu.Lock()
	if s.status != nil {
		code, at := s.status.Code, s.exitedAt
		in.ExitCode, in.Signal, in.ExitedAt, end = &code, s.status.Signal, &at, at
		if s.status.Signal != "" {
			in.ExitCode = nil
		}
		if s.status.Lost != "" {
			in.ExitCode, in.ExitedAt, in.LostAt, in.LostReason = nil, nil, &at, s.status.Lost
		}
	}
	in.IdleMs = time.Since(s.lastUse).Milliseconds()
	in.EndedBy = s.endedBy
	in.Holder = s.lease.holder
	s.mu.Unlock()
	in.UptimeMs = end.Sub(s.Started).Milliseconds()
	return in
}

// stateOf is the session state for what the kernel says the program does
// with its input.
func stateOf(s inputwait.State) record.State {
	switch s {
	case inputwait.AwaitingInput:
		return record.StateAwaitingInput
	case inputwait.AwaitingPassword:
		return record.StateAwaitingPassword
	}
	return record.StateRunning
}
