package mcpserver

import (
	"time"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// Wire forms of the engine's session records: what list_sessions,
// get_session_info, terminate_process, resize_pty and the reading tools
// put in their structured results. The engine's types carry no tags; these
// are converted from them field by field.

// SessionInfo is a session as list_sessions and get_session_info show it.
type SessionInfo struct {
	ID          string       `json:"session_id"`
	Name        string       `json:"name,omitempty"`
	Command     string       `json:"command"`
	Argv        []string     `json:"argv"`
	Mode        string       `json:"mode"`
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
	LostAt      *time.Time   `json:"lost_at,omitempty"`
	LostReason  string       `json:"lost_reason,omitempty"`
}

// ReaderInfo describes a cursor for get_session_info.
type ReaderInfo struct {
	ID      int   `json:"reader_id"`
	Cursor  int64 `json:"cursor"`
	Pending int64 `json:"pending_bytes"`
}

// Omitted describes output left out of the middle of a result. From and To
// are cursors: read_output with cursor=From and overflow=page returns it.
type Omitted struct {
	From  int64 `json:"from_cursor"`
	To    int64 `json:"to_cursor"`
	Bytes int64 `json:"bytes"`
	Lines int64 `json:"lines"`
}

func sessionInfo(in record.Info) SessionInfo {
	out := SessionInfo{ID: in.ID, Name: in.Name, Command: in.Command, Argv: in.Argv, Mode: string(in.Mode),
		Cwd: in.Cwd, EnvKeys: in.EnvKeys, PID: in.PID, State: string(in.State), StateDetail: in.StateDetail,
		ExitCode: in.ExitCode, Signal: in.Signal, EndedBy: in.EndedBy, StartedAt: in.StartedAt, ExitedAt: in.ExitedAt,
		UptimeMs: in.UptimeMs, IdleMs: in.IdleMs, Bytes: in.Bytes, Lines: in.Lines, Retained: in.Retained,
		Evicted: in.Evicted, TUI: in.TUI, Rows: in.Rows, Cols: in.Cols, Host: in.Host,
		LostAt: in.LostAt, LostReason: in.LostReason}
	if in.Readers != nil {
		out.Readers = make([]ReaderInfo, len(in.Readers))
		for i, r := range in.Readers {
			out.Readers[i] = ReaderInfo{ID: r.ID, Cursor: r.Cursor, Pending: r.Pending}
		}
	}
	return out
}

func sessionInfos(ins []record.Info) []SessionInfo {
	out := make([]SessionInfo, len(ins))
	for i, in := range ins {
		out[i] = sessionInfo(in)
	}
	return out
}

func omitted(om *session.Omitted) *Omitted {
	if om == nil {
		return nil
	}
	return &Omitted{From: om.From, To: om.To, Bytes: om.Bytes, Lines: om.Lines}
}
