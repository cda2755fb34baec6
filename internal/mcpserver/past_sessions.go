package mcpserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
)

// pastSessions are recorded sessions this server does not hold in memory
// (earlier runs, lost ones, sessions of other servers sharing the store),
// oldest first like Manager.List.
func (t *tools) pastSessions(since time.Time, live map[string]bool) ([]record.Info, error) {
	if t.store == nil {
		return nil, nil
	}
	recs, err := t.store.Sessions(since, 0)
	if err != nil {
		return nil, fmt.Errorf("list recorded sessions: %w", err)
	}
	var out []record.Info
	for i := len(recs) - 1; i >= 0; i-- {
		if !live[recs[i].ID] {
			out = append(out, recs[i].Info())
		}
	}
	return out, nil
}

// pastInfo describes a recorded session when the engine does not know it.
func (t *tools) pastInfo(id string, liveErr error) (record.Info, bool) {
	if t.store == nil || !errors.Is(liveErr, session.ErrSessionNotFound) {
		return record.Info{}, false
	}
	r, err := t.store.Session(id)
	if err != nil {
		return record.Info{}, false
	}
	return r.Info(), true
}

// pastSessionErr says what a recorded session this server does not run is
// and which tools work on it; nil if the store does not hold id either.
func (t *tools) pastSessionErr(id string) error {
	r, err := t.store.Session(id)
	if err != nil {
		return nil
	}
	var what, also string
	switch r.State {
	case record.StateRunning:
		what = fmt.Sprintf("is running under agentty pid %d, another server sharing this transcript store; only that server can send it input, read it live or stop it", r.Owner)
		also = "delete it once it ends"
	case record.StateLost:
		what = "is lost"
		if r.LostReason != "" {
			what += ": " + r.LostReason
		}
		also = "delete_session removes it"
	default:
		how := "exited"
		if r.Signal != "" {
			how = "was killed by " + r.Signal
		} else if r.ExitCode != nil {
			how = fmt.Sprintf("exited with code %d", *r.ExitCode)
		}
		what = fmt.Sprintf("%s (recorded by agentty pid %d; a server drops ended sessions from memory after a while)", how, r.Owner)
		also = "delete_session removes it"
	}
	return fmt.Errorf("%w: session %s is a recorded session, not one this server runs: it %s. "+
		"Its transcript is readable here with get_history, search_output and list_messages, and get_session_info describes it (%s); "+
		"send_input, read_output, read_screen and terminate_process work only on this server's live sessions: start the program again with start_process to continue",
		session.ErrSessionNotFound, r.ID, what, also)
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
	if r.State == record.StateRunning {
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
