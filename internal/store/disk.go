package store

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"

	"github.com/agentty/agentty/internal/outlog"
)

// diskRead is output read back from the records table.
type diskRead struct {
	from int64 // where the data really starts (after a missing range)
	next int64 // where to continue
	data []byte
}

// readOutput reads up to max bytes of the selected streams of session sid
// from offset from, not past limit. A missing range (pruned, or a gap)
// before any data is skipped and shows as from > the requested offset; a
// missing range after some data ends the read there, so the next read
// reports it.
func (s *Store) readOutput(sid string, from, limit int64, max int, streams outlog.Stream) (diskRead, error) {
	d := diskRead{from: from, next: from}
	if from >= limit {
		return d, nil
	}
	first := from
	err := s.db.QueryRow(`SELECT off FROM records WHERE sid=? AND kind=0 AND off<=? ORDER BY off DESC LIMIT 1`, sid, from).Scan(&first)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("find chunk: %w", err)
	}
	rows, err := s.db.Query(`SELECT off, stream, size, seg, pos FROM records WHERE sid=? AND kind=0 AND off>=? AND off<? ORDER BY off`, sid, first, limit)
	if err != nil {
		return d, fmt.Errorf("read chunks: %w", err)
	}
	defer rows.Close()
	segs := s.segReader(sid)
	defer segs.close()
	at := from // next byte we want
	started := false
	for rows.Next() && len(d.data) < max {
		var off, size, seg, pos int64
		var st int
		if err := rows.Scan(&off, &st, &size, &seg, &pos); err != nil {
			return d, err
		}
		end := off + size
		if end <= at {
			continue
		}
		if off > at {
			if started {
				break // a hole after data: stop before it
			}
			at = off // a hole before any data: skip it
		}
		if !started {
			d.from, started = at, true
		}
		want := min(end, limit) - at
		if outlog.Stream(st)&streams == 0 {
			at += want
			continue
		}
		want = min(want, int64(max-len(d.data)))
		data, err := segs.read(seg, pos+at-off, want)
		if err != nil {
			return d, err
		}
		d.data = append(d.data, data...)
		at += want
	}
	if err := rows.Err(); err != nil {
		return d, err
	}
	if !started {
		// Nothing stored in [from, limit): all of it is missing.
		d.from = limit
		at = limit
	}
	d.next = at
	return d, nil
}

// chunkData reads one output chunk's bytes from its segment.
func (s *Store) chunkData(sid string, seg, pos, size int64) ([]byte, error) {
	r := s.segReader(sid)
	defer r.close()
	return r.read(seg, pos, size)
}

// lineAt counts newlines before off from the chunk holding it.
func (s *Store) lineAt(sid string, off int64) (int64, error) {
	var coff, line, size, seg, pos int64
	err := s.db.QueryRow(`SELECT off, line, size, seg, pos FROM records WHERE sid=? AND kind=0 AND off<=? ORDER BY off DESC LIMIT 1`, sid, off).Scan(&coff, &line, &size, &seg, &pos)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	data, err := s.chunkData(sid, seg, pos, min(size, off-coff))
	if err != nil {
		return 0, err
	}
	k := len(data)
	return line + int64(bytes.Count(data[:k], []byte{'\n'})), nil
}

// offsetAfterLine finds the offset just after the n-th newline: in the
// last chunk that starts before it.
func (s *Store) offsetAfterLine(sid string, n int64) (int64, error) {
	var coff, line, size, seg, pos int64
	err := s.db.QueryRow(`SELECT off, line, size, seg, pos FROM records WHERE sid=? AND kind=0 AND line<? ORDER BY line DESC, off DESC LIMIT 1`, sid, n).Scan(&coff, &line, &size, &seg, &pos)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	data, err := s.chunkData(sid, seg, pos, size)
	if err != nil {
		return 0, err
	}
	need := n - line
	for j, c := range data {
		if c == '\n' {
			need--
			if need == 0 {
				return coff + int64(j) + 1, nil
			}
		}
	}
	// The newline fell into a missing range: the next stored byte.
	return coff + int64(len(data)), nil
}
