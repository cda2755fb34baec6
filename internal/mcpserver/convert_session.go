package mcpserver

import (
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// Wire forms of the engine's session records: what list_sessions,
// get_session_info, terminate_process, resize_pty and the reading tools
// put in their structured results. The engine's types carry no tags; these
// are converted from them field by field.

func sessionInfo(in record.Info) SessionInfo {
	out := SessionInfo{ID: in.ID, Name: in.Name, Command: in.Command, Argv: in.Argv, Mode: string(in.Mode),
		Cwd: in.Cwd, EnvKeys: in.EnvKeys, PID: in.PID, State: string(in.State), StateDetail: in.StateDetail,
		ExitCode: in.ExitCode, Signal: in.Signal, EndedBy: in.EndedBy, StartedAt: in.StartedAt, ExitedAt: in.ExitedAt,
		UptimeMs: in.UptimeMs, IdleMs: in.IdleMs, Bytes: in.Bytes, Lines: in.Lines, Retained: in.Retained,
		Evicted: in.Evicted, TUI: in.TUI, Rows: in.Rows, Cols: in.Cols, Host: in.Host,
		LostAt: in.LostAt, LostReason: in.LostReason, Holder: in.Holder, Listening: sockets(in.Listening)}
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
