package mcpserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
)

// pastSessions are recorded sessions this server does not hold in memory
// (earlier runs, lost ones, sessions of other servers sharing the store),
// oldest first like Manager.List.
func (t *tools) pastSessions(since time.Time, live map[string]bool) ([]session.Info, error) {
	if t.store == nil {
		return nil, nil
	}
	recs, err := t.store.Sessions(since, 0)
	if err != nil {
		return nil, fmt.Errorf("list recorded sessions: %w", err)
	}
	var out []session.Info
	for i := len(recs) - 1; i >= 0; i-- {
		if !live[recs[i].ID] {
			out = append(out, recs[i].Info())
		}
	}
	return out, nil
}

// pastInfo describes a recorded session when the engine does not know it.
func (t *tools) pastInfo(id string, liveErr error) (session.Info, bool) {
	if t.store == nil || !errors.Is(liveErr, session.ErrSessionNotFound) {
		return session.Info{}, false
	}
	r, err := t.store.Session(id)
	if err != nil {
		return session.Info{}, false
	}
	return r.Info(), true
}

// deletePast deletes a recorded session the engine does not hold.
func (t *tools) deletePast(id string, liveErr error) (DeleteResult, error) {
	if t.store == nil || !errors.Is(liveErr, session.ErrSessionNotFound) {
		return DeleteResult{}, liveErr
	}
	r, err := t.store.Session(id)
	if err != nil {
		return DeleteResult{}, liveErr
	}
	if r.State == store.StateRunning {
		return DeleteResult{}, fmt.Errorf("%w: session %s is running under another agentty (pid of its process: %d); stop it there first", session.ErrRunning, id, r.PID)
	}
	if err := t.store.Delete(id); err != nil {
		return DeleteResult{}, err
	}
	return DeleteResult{SessionID: id, Deleted: true}, nil
}

// forgetRecorded removes a deleted live session's transcript too.
func (t *tools) forgetRecorded(id string) error {
	if t.store == nil {
		return nil
	}
	if err := t.store.Delete(id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("session %s deleted from memory, but its transcript could not be removed: %w", id, err)
	}
	return nil
}
