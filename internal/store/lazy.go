package store

import (
	"errors"
	"fmt"
	"time"
)

// errClosed is the error of a call on a store closed before it was opened.
var errClosed = errors.New("store: closed")

// OpenLater is Open with the database opened off the caller's path: it
// checks the directory at once (a wrong path is still an error here), and
// opens the database in the background once delay has passed, or sooner
// when a call needs it (that call waits for it). A server answers its first
// requests without waiting for SQLite, its migration, the lost-session
// sweep and retention. A failed open is the error of every call that needs
// the database; sessions then keep their output in memory only.
func OpenLater(dir string, o *Options, delay time.Duration) (*Store, error) {
	s, err := prepare(dir, o)
	if err != nil {
		return nil, err
	}
	s.later = time.AfterFunc(delay, func() { s.opening.Do(s.openDB) })
	return s, nil
}

// ready opens the database if that has not begun, waits for the open and
// returns its error, worded for the agent who meets it in a tool result.
func (s *Store) ready() error {
	s.opening.Do(s.openDB)
	<-s.opened
	if s.openErr != nil {
		return fmt.Errorf("%w (the transcript store could not be opened: past sessions and their transcripts are not available; restart agentty with --no-store to run without it)", s.openErr)
	}
	if s.db == nil {
		return errClosed
	}
	return nil
}
