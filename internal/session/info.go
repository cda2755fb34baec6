package session

import "time"

// Info is a snapshot of a session for list_sessions and get_session_info.
type Info struct {
	ID          string       `json:"session_id"`
	Name        string       `json:"name,omitempty"`
	Command     string       `json:"command"`
	Argv        []string     `json:"argv"`
	Mode        Mode         `json:"mode"`
	Cwd         string       `json:"cwd"`
	EnvKeys     []string     `json:"env_keys,omitempty"`
	PID         int          `json:"pid"`
	State       string       `json:"state"`
	StateDetail string       `json:"state_detail,omitempty"`
	ExitCode    *int         `json:"exit_code,omitempty"`
	Signal      string       `json:"signal,omitempty"`
	EndedBy     string       `json:"ended_by,omitempty"` // idle_timeout or max_runtime when agentty ended it
	StartedAt   time.Time    `json:"started_at"`
	ExitedAt    *time.Time   `json:"exited_at,omitempty"`
	UptimeMs    int64        `json:"uptime_ms"`
	IdleMs      int64        `json:"idle_ms"`
	Bytes       int64        `json:"bytes"`
	Lines       int64        `json:"lines"`
	Retained    int64        `json:"retained_bytes"`
	Evicted     int64        `json:"evicted_bytes"`
	TUI         bool         `json:"tui,omitempty"` // full-screen program (alternate screen): read_screen shows it
	Rows        int          `json:"rows,omitempty"`
	Cols        int          `json:"cols,omitempty"`
	Readers     []ReaderInfo `json:"readers"`
	Host        string       `json:"host,omitempty"`

	// LostAt and LostReason are set with state "lost": a session recorded
	// as running whose process or connection is gone (LostAt is when
	// agentty last saw it).
	LostAt     *time.Time `json:"lost_at,omitempty"`
	LostReason string     `json:"lost_reason,omitempty"`
}

// Info describes the session now. Uptime of an exited session is how long
// it ran, not how long ago it started.
func (s *Session) Info() Info {
	state, p := s.State()
	st := s.log.Stats()
	in := Info{
		ID: s.ID, Name: s.Name, Command: s.Command, Argv: s.Argv, Mode: s.Mode, Cwd: s.Cwd,
		EnvKeys: s.EnvKeys, PID: s.PID(), State: state, StateDetail: p.Detail, StartedAt: s.Started,
		Bytes: st.End, Lines: st.Lines, Retained: st.Retained, Evicted: st.Start,
		Readers: s.Readers(),
	}
	in.Rows, in.Cols = s.proc.Size()
	in.Host = s.Host()
	in.TUI = s.TUI()
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
	s.mu.Unlock()
	in.UptimeMs = end.Sub(s.Started).Milliseconds()
	return in
}
