package catalog

import (
	"errors"
	"regexp"
	"slices"

	"github.com/agentty/agentty/internal/history"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
)

// OutputLog finds the output of a live session (its own log: memory, then
// disk) or, failing that, of a recorded one, and the session's id. An id
// the store does not hold either gives an error wrapping store.ErrNotFound.
func (c *Catalog) OutputLog(id string) (outlog.Log, string, error) {
	s, err := c.mgr.Get(id)
	if err == nil {
		return s.OutputLog(), s.ID, nil
	}
	if c.store == nil || !errors.Is(err, session.ErrSessionNotFound) {
		return nil, "", err
	}
	l, err := c.store.OpenLog(id)
	if err != nil {
		return nil, "", err
	}
	return l, id, nil
}

// Search finds lines matching re in every session's output, newest
// session and newest line first, within o's bounds. o.SessionIDs may name
// live sessions. With a store it searches every recorded transcript (live
// sessions are recorded too); without one, live sessions' memory.
func (c *Catalog) Search(re *regexp.Regexp, o store.SearchOptions) (store.SearchResult, error) {
	for i, id := range o.SessionIDs {
		o.SessionIDs[i] = c.Resolve(id)
	}
	if c.store != nil {
		return c.store.Search(re, o)
	}
	return c.searchMemory(re, o), nil
}

// searchMemory searches live sessions' in-memory output when there is no
// store, newest session first.
func (c *Catalog) searchMemory(re *regexp.Regexp, o store.SearchOptions) store.SearchResult {
	res := store.SearchResult{Complete: true}
	all := c.mgr.List()
	for i := len(all) - 1; i >= 0 && len(res.Matches) < o.MaxResults; i-- {
		s := all[i]
		if s.Started.Before(o.Since) || o.SessionIDs != nil && !slices.Contains(o.SessionIDs, s.ID) {
			continue
		}
		h := history.Get(s.OutputLog(), history.Query{Grep: re, MaxMatches: o.MaxResults - len(res.Matches), MaxBytes: history.MaxBytesCap})
		res.Scanned += h.Scanned
		for j := len(h.Lines) - 1; j >= 0; j-- {
			text := h.Lines[j].Text
			if len(text) > o.MaxLineBytes {
				text = text[:o.MaxLineBytes]
			}
			res.Matches = append(res.Matches, store.Match{SessionID: s.ID, Line: h.Lines[j].N, Text: text})
		}
		if h.Truncated {
			res.Complete = false
		}
	}
	return res
}
