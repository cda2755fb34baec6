// Package catalog is every session agentty knows, live and recorded: the
// sessions this server runs (session.Manager) and those only the transcript
// store holds (earlier runs, lost sessions, sessions of other servers
// sharing the store). The tools that list, describe, delete, read and
// search sessions ask it, so live and past sessions look alike to them.
package catalog

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
)

// Catalog joins a manager and its transcript store.
type Catalog struct {
	mgr   *session.Manager
	store *store.Store // nil: memory only (agentty serve --no-store)
}

// New returns the catalog of mgr's sessions and those recorded in st
// (nil: none).
func New(mgr *session.Manager, st *store.Store) *Catalog {
	return &Catalog{mgr: mgr, store: st}
}

// Recording reports whether there is a transcript store.
func (c *Catalog) Recording() bool { return c.store != nil }

// Resolve turns a live session's name into its id; anything else
// (an id, a recorded session's id, an unknown name) comes back as is.
func (c *Catalog) Resolve(id string) string {
	if s, err := c.mgr.Get(id); err == nil {
		return s.ID
	}
	return id
}

// List describes the sessions started since since, oldest first: the
// recorded sessions this server does not hold, then the live ones. Without
// withExited it lists only live sessions that have not exited.
func (c *Catalog) List(since time.Time, withExited bool) ([]record.Info, error) {
	out := []record.Info{}
	live := map[string]bool{}
	for _, s := range c.mgr.List() {
		live[s.ID] = true
		info := s.Info()
		if !withExited && info.State == record.StateExited || info.StartedAt.Before(since) {
			continue
		}
		out = append(out, info)
	}
	if withExited {
		past, err := c.past(since, live)
		if err != nil {
			return nil, err
		}
		out = append(past, out...)
	}
	return out, nil
}

// past are recorded sessions this server does not hold in memory, oldest
// first like Manager.List.
func (c *Catalog) past(since time.Time, live map[string]bool) ([]record.Info, error) {
	if c.store == nil {
		return nil, nil
	}
	recs, err := c.store.Sessions(since, 0)
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

// Info describes a live session (by id or name) or, failing that, a
// recorded one; when neither holds id, the manager's error.
func (c *Catalog) Info(id string) (record.Info, error) {
	s, err := c.mgr.Get(id)
	if err == nil {
		return s.Info(), nil
	}
	if c.store == nil || !errors.Is(err, session.ErrSessionNotFound) {
		return record.Info{}, err
	}
	r, serr := c.store.Session(id)
	if serr != nil {
		return record.Info{}, err
	}
	return r.Info(), nil
}

// Delete removes a session and its transcript and returns its id: a live
// session (by id or name, once it has exited; see Manager.Delete) or a
// recorded one no server runs. When neither holds id, the manager's error.
func (c *Catalog) Delete(id string) (string, error) {
	s, err := c.mgr.Get(id)
	if err != nil {
		if err := c.deletePast(id, err); err != nil {
			return "", err
		}
		return id, nil
	}
	if err := c.mgr.Delete(s.ID); err != nil {
		return "", err
	}
	if err := c.forgetRecorded(s.ID); err != nil {
		return "", err
	}
	return s.ID, nil
}

// deletePast deletes a recorded session the manager does not hold; liveErr
// is why the manager does not.
func (c *Catalog) deletePast(id string, liveErr error) error {
	if c.store == nil || !errors.Is(liveErr, session.ErrSessionNotFound) {
		return liveErr
	}
	r, err := c.store.Session(id)
	if err != nil {
		return liveErr
	}
	if r.State == record.StateRunning {
		return fmt.Errorf("%w: session %s is running under another agentty (pid of its process: %d); stop it there first", session.ErrRunning, id, r.PID)
	}
	return c.store.Delete(id)
}

// forgetRecorded removes a deleted live session's transcript too.
func (c *Catalog) forgetRecorded(id string) error {
	if c.store == nil {
		return nil
	}
	if err := c.store.Delete(id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("session %s deleted from memory, but its transcript could not be removed: %w", id, err)
	}
	return nil
}
