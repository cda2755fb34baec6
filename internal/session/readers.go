package session

import (
	"fmt"
	"slices"
	"sync"

	"github.com/agentty/agentty/internal/record"
)

// reader is one independent cursor into a session's output. Several agents
// read the same session without taking output from each other.
type reader struct {
	id   int
	mu   sync.Mutex // serializes reads through this cursor
	off  int64      // guarded by mu
	line int64      // guarded by mu; newlines before off
}

// DefaultReader is the cursor every session starts with.
const DefaultReader = 0

// RegisterReader adds a cursor at the start of the retained output
// (fromStart) or at its end, and returns its id.
func (s *Session) RegisterReader(fromStart bool) int {
	st := s.log.Stats()
	r := &reader{off: st.End, line: st.Lines}
	if fromStart {
		r.off, r.line = 0, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextReader++
	r.id = s.nextReader
	s.readers[r.id] = r
	return r.id
}

// UnregisterReader drops a cursor. The default reader cannot be dropped.
func (s *Session) UnregisterReader(id int) error {
	if id == DefaultReader {
		return fmt.Errorf("%w: reader 0 is the session's default cursor and cannot be unregistered", ErrBadArgs)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.readers[id]; !ok {
		return &ReaderNotFoundError{ID: s.ID, Reader: id}
	}
	delete(s.readers, id)
	return nil
}

func (s *Session) reader(id int) (*reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.readers[id]
	if !ok {
		return nil, &ReaderNotFoundError{ID: s.ID, Reader: id, Readers: s.readerIDs()}
	}
	return r, nil
}

func (s *Session) readerIDs() []int {
	ids := make([]int, 0, len(s.readers))
	for id := range s.readers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Readers describes every cursor.
func (s *Session) Readers() []record.ReaderInfo {
	end := s.log.Stats().End
	s.mu.Lock()
	rs := make([]*reader, 0, len(s.readers))
	for _, id := range s.readerIDs() {
		rs = append(rs, s.readers[id])
	}
	s.mu.Unlock()
	out := make([]record.ReaderInfo, 0, len(rs))
	for _, r := range rs {
		r.mu.Lock()
		out = append(out, record.ReaderInfo{ID: r.id, Cursor: r.off, Pending: end - r.off})
		r.mu.Unlock()
	}
	return out
}
