package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// retain applies age and total-size retention: sessions that are not
// running are pruned, oldest ended first. A running session is never
// pruned here; its own size is bounded by pruneSession.
func (s *Store) retain(now time.Time) error {
	if s.opt.MaxAge > 0 {
		old, err := s.ids(`SELECT id FROM sessions WHERE state!='running' AND COALESCE(exited_at, lost_at, last_seen) < ?`,
			now.Add(-s.opt.MaxAge).UnixNano())
		if err != nil {
			return err
		}
		for _, id := range old {
			if _, err := s.deleteSession(id); err != nil {
				return err
			}
			s.log.Info("store: pruned old session", "session", id)
		}
	}
	var total int64
	if err := s.wdb.QueryRow(`SELECT COALESCE(SUM(disk_bytes), 0) FROM sessions`).Scan(&total); err != nil {
		return fmt.Errorf("store: total size: %w", err)
	}
	if total <= s.opt.MaxTotalBytes {
		return nil
	}
	rows, err := s.wdb.Query(`SELECT id, disk_bytes FROM sessions WHERE state!='running' ORDER BY COALESCE(exited_at, lost_at, last_seen), started_at`)
	if err != nil {
		return err
	}
	type victim struct {
		id    string
		bytes int64
	}
	var victims []victim
	for rows.Next() && total > s.opt.MaxTotalBytes {
		var v victim
		if err := rows.Scan(&v.id, &v.bytes); err != nil {
			rows.Close()
			return err
		}
		victims = append(victims, v)
		total -= v.bytes
	}
	rows.Close()
	for _, v := range victims {
		if _, err := s.deleteSession(v.id); err != nil {
			return err
		}
		s.log.Info("store: pruned session for space", "session", v.id, "bytes", v.bytes)
	}
	return nil
}

func (s *Store) ids(q string, args ...any) ([]string, error) {
	rows, err := s.wdb.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// pruneSession drops the oldest output of one session until it keeps about
// 90% of MaxSessionBytes, whole records at a time. The newest output is
// never touched. Runs on the writer goroutine.
func (s *Store) pruneSession(l *Log) error {
	keep := s.opt.MaxSessionBytes * 9 / 10
	cutBefore := l.durable.Load() - keep
	var cut, line int64
	err := s.wdb.QueryRow(`SELECT off, line FROM records WHERE sid=? AND kind=0 AND off>=? ORDER BY off LIMIT 1`, l.id, cutBefore).Scan(&cut, &line)
	if errors.Is(err, sql.ErrNoRows) || err == nil && cut <= l.diskStart.Load() {
		return nil
	}
	if err != nil {
		return err
	}
	tx, err := s.wdb.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	var dropped int64
	if err := tx.QueryRow(`SELECT COALESCE(SUM(size), 0) FROM records WHERE sid=? AND kind=0 AND off<?`, l.id, cut).Scan(&dropped); err != nil {
		return err
	}
	if _, err := tx.Exec(`DELETE FROM records WHERE sid=? AND kind=0 AND off<?`, l.id, cut); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE sessions SET start_off=?, start_line=?, disk_bytes=disk_bytes-? WHERE id=?`, cut, line, dropped, l.id); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	l.diskStartLine.Store(line)
	l.diskStart.Store(cut)
	l.diskBytes -= dropped
	// Whole segment files before the first kept chunk go.
	var first int64
	if err := s.wdb.QueryRow(`SELECT seg FROM records WHERE sid=? AND kind=0 ORDER BY off LIMIT 1`, l.id).Scan(&first); err != nil {
		return err
	}
	return s.removeSegmentsBefore(l.id, first)
}
