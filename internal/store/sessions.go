package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/record"
)

// Session is a session as the store recorded it.
type Session struct {
	ID         string
	Name       string
	Command    string
	Argv       []string
	Cwd        string
	EnvKeys    []string
	Mode       record.Mode
	Host       string // remote host, "" for local
	PID        int
	Owner      int // pid of the agentty server that ran it
	Rows, Cols int
	StartedAt  time.Time
	ExitedAt   *time.Time
	LastSeen   time.Time
	State      record.State // running, exited, or lost: recorded as running but its process (or the agentty that ran it) is gone
	ExitCode   *int
	Signal     string
	LostAt     *time.Time
	LostReason string
	Bytes      int64 // output bytes committed
	Lines      int64
	StartOff   int64 // first offset still on disk
	DiskBytes  int64
}

// Info renders the record as a live session's record.Info, for tools that
// list past sessions beside live ones.
func (r Session) Info() record.Info {
	in := record.Info{ID: r.ID, Name: r.Name, Command: r.Command, Argv: r.Argv, Mode: r.Mode,
		Cwd: r.Cwd, EnvKeys: r.EnvKeys, Host: r.Host, PID: r.PID, State: r.State, ExitCode: r.ExitCode, Signal: r.Signal,
		StartedAt: r.StartedAt, ExitedAt: r.ExitedAt, LostAt: r.LostAt, LostReason: r.LostReason,
		Bytes: r.Bytes, Lines: r.Lines, Retained: r.Bytes - r.StartOff, Evicted: r.StartOff,
		Rows: r.Rows, Cols: r.Cols, Readers: []record.ReaderInfo{}}
	end := r.LastSeen
	if r.ExitedAt != nil {
		end = *r.ExitedAt
	} else if r.LostAt != nil {
		end = *r.LostAt
	}
	in.UptimeMs = end.Sub(r.StartedAt).Milliseconds()
	in.IdleMs = time.Since(end).Milliseconds()
	return in
}

const sessionCols = `id, name, command, argv, cwd, env_keys, mode, host, pid, rows, cols, started_at, exited_at, last_seen,
	state, exit_code, signal, lost_at, lost_reason, bytes, lines, start_off, disk_bytes, owner_pid`

type scanner interface{ Scan(...any) error }

func scanSession(sc scanner) (Session, error) {
	var r Session
	var argv, env string
	var started, seen int64
	var exited, lost, code sql.NullInt64
	if err := sc.Scan(&r.ID, &r.Name, &r.Command, &argv, &r.Cwd, &env, &r.Mode, &r.Host, &r.PID, &r.Rows, &r.Cols,
		&started, &exited, &seen, &r.State, &code, &r.Signal, &lost, &r.LostReason, &r.Bytes, &r.Lines,
		&r.StartOff, &r.DiskBytes, &r.Owner); err != nil {
		return r, err
	}
	_ = json.Unmarshal([]byte(argv), &r.Argv)
	_ = json.Unmarshal([]byte(env), &r.EnvKeys)
	r.StartedAt, r.LastSeen = time.Unix(0, started), time.Unix(0, seen)
	if exited.Valid {
		t := time.Unix(0, exited.Int64)
		r.ExitedAt = &t
	}
	if lost.Valid {
		t := time.Unix(0, lost.Int64)
		r.LostAt = &t
	}
	if code.Valid {
		c := int(code.Int64)
		r.ExitCode = &c
	}
	return r, nil
}

// Session returns one recorded session (after committing what is queued).
func (s *Store) Session(id string) (Session, error) {
	if err := s.ready(); err != nil {
		return Session{}, err
	}
	s.Sync(syncWait)
	if err := s.markLost(false); err != nil {
		return Session{}, err
	}
	r, err := scanSession(s.db.QueryRow(`SELECT `+sessionCols+` FROM sessions WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%w: session %s", ErrNotFound, excerpt.Q(id))
	}
	return r, err
}

// Sessions lists recorded sessions started at or after since (zero: all),
// newest first, at most limit (<= 0: all).
func (s *Store) Sessions(since time.Time, limit int) ([]Session, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.Sync(syncWait)
	if err := s.markLost(false); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.Query(`SELECT `+sessionCols+` FROM sessions WHERE started_at>=? ORDER BY started_at DESC, id DESC LIMIT ?`,
		since.UnixNano(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		r, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// OpenLog returns a read-only log over a recorded session's transcript. A
// live session of this server should be read through its own Log instead.
func (s *Store) OpenLog(id string) (*Log, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	r, err := s.Session(id)
	if err != nil {
		return nil, err
	}
	var startLine int64
	_ = s.db.QueryRow(`SELECT start_line FROM sessions WHERE id=?`, id).Scan(&startLine)
	l := &Log{st: s, id: id, pastClosed: true, pastLast: r.LastSeen.UnixNano(), done: make(chan struct{})}
	close(l.done)
	l.end.Store(r.Bytes)
	l.lines.Store(r.Lines)
	l.durable.Store(r.Bytes)
	l.diskStart.Store(r.StartOff)
	l.diskStartLine.Store(startLine)
	return l, nil
}

// Delete removes a session's record, transcript and segment files. The
// caller makes sure the session is not running.
func (s *Store) Delete(id string) error {
	if err := s.ready(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("store: closed")
	}
	delete(s.live, id)
	o := &op{kind: opDelete, sid: id, done: make(chan error, 1)}
	s.push(o)
	s.mu.Unlock()
	s.Sync(syncWait)
	select {
	case err := <-o.done:
		return err
	case <-time.After(syncWait):
		return errors.New("store: delete is taking long; it will finish in the background")
	}
}

// deleteSession removes one session's rows and files; it returns how many
// session rows went. Writer goroutine only (or before it starts).
func (s *Store) deleteSession(id string) (int64, error) {
	tx, err := s.wdb.Begin()
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.Exec(`DELETE FROM records WHERE sid=?`, id); err != nil {
		return 0, fmt.Errorf("delete transcript of %s: %w", id, err)
	}
	res, err := tx.Exec(`DELETE FROM sessions WHERE id=?`, id)
	if err != nil {
		return 0, fmt.Errorf("delete session %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	s.closeSegments(id)
	if err := os.RemoveAll(s.segDir(id)); err != nil {
		return n, fmt.Errorf("remove segment files of %s: %w", id, err)
	}
	return n, nil
}

// Forget drops a live session's log from the store's bookkeeping once the
// engine no longer holds it; its records stay.
func (s *Store) Forget(id string) {
	s.mu.Lock()
	delete(s.live, id)
	s.mu.Unlock()
}

// markLost marks sessions recorded as running whose server is gone. A
// session of another live server sharing the directory is left alone. At
// open this server's own pid and start count as gone too (the store was
// opened again in the same process); afterwards its own sessions are
// skipped, and the others are checked again before each read, so a server
// that dies while this one runs has its sessions lost at once rather than
// at the next start.
func (s *Store) markLost(atOpen bool) error {
	q := `SELECT id, pid, owner_pid, owner_start FROM sessions WHERE state='running'`
	var args []any
	if !atOpen {
		q += ` AND NOT (owner_pid=? AND owner_start=?)`
		args = []any{s.owner, s.ownerStart}
	}
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return fmt.Errorf("store: find running sessions: %w", err)
	}
	type row struct {
		id         string
		pid, owner int
		ownerStart int64
	}
	var lost []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.pid, &r.owner, &r.ownerStart); err != nil {
			rows.Close()
			return err
		}
		ownerAlive := r.ownerStart != 0 && procStart(r.owner) == r.ownerStart &&
			!(r.owner == s.owner && r.ownerStart == s.ownerStart)
		if !ownerAlive {
			lost = append(lost, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range lost {
		reason := fmt.Sprintf("agentty (pid %d) stopped without recording the exit of process %d", r.owner, r.pid)
		if _, err := s.db.Exec(`UPDATE sessions SET state='lost', lost_at=last_seen, lost_reason=? WHERE id=? AND state='running'`,
			reason, r.id); err != nil {
			return fmt.Errorf("store: mark %s lost: %w", r.id, err)
		}
		s.log.Info("session lost", "session", r.id, "reason", reason)
	}
	return nil
}
