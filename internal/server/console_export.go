package server

import (
	"fmt"

	"github.com/agentty/agentty/internal/cast"
	"github.com/agentty/agentty/internal/console"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/store"
)

// Recording is a session's transcript for export: from the store's
// records when there is a store, else the output a live session retains
// (all at its start time: memory keeps no times).
func (c consoleEngine) Recording(id string) (cast.Recording, error) {
	if c.store == nil {
		s, err := c.session(id)
		if err != nil {
			return cast.Recording{}, err
		}
		in := s.Info()
		l := s.OutputLog()
		return cast.Recording{Command: s.Command, Started: s.Started, Rows: in.Rows, Cols: in.Cols,
			Each: func(visit func(cast.Record) error) error {
				sl := l.Read(l.Stats().Start, -1, 0, outlog.Both)
				return visit(cast.Record{Time: s.Started, Kind: cast.Output, Data: sl.Data})
			}}, nil
	}
	sid := id
	if s, err := c.mgr.Get(id); err == nil {
		sid = s.ID
	}
	r, err := c.store.Session(sid)
	if err != nil {
		return cast.Recording{}, console.Mark(err, console.ErrNotFound)
	}
	return cast.Recording{Command: r.Command, Started: r.StartedAt, Rows: r.Rows, Cols: r.Cols,
		Each: func(visit func(cast.Record) error) error { return eachRecord(c.store, r.ID, visit) }}, nil
}

// eachRecord visits a stored session's output, inputs and resizes in order.
func eachRecord(st *store.Store, sid string, visit func(cast.Record) error) error {
	var after int64
	for {
		msgs, more, err := st.Messages(sid, store.MessageQuery{AfterID: after, Limit: recordPage, Preview: recordBytes})
		if err != nil {
			return err
		}
		for _, m := range msgs {
			after = m.ID
			rec := cast.Record{Time: m.Time, Data: m.Content}
			switch {
			case m.Type == "output":
				rec.Kind = cast.Output
			case m.Type == "input" && !m.Redacted:
				rec.Kind = cast.Input
			case m.Type == "event" && m.Event == "resize":
				rec.Kind = cast.Resize
				if _, err := fmt.Sscanf(string(m.Content), "%dx%d", &rec.Cols, &rec.Rows); err != nil {
					continue
				}
			default:
				continue
			}
			if err := visit(rec); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
	}
}
