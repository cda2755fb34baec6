package store

import (
	"bytes"
	"fmt"
	"regexp"
	"time"

	"github.com/agentty/agentty/internal/termtext"
)

// SearchOptions bound a search across sessions.
type SearchOptions struct {
	SessionIDs   []string  // nil: every recorded session
	Since        time.Time // sessions started at or after this
	MaxResults   int       // matches returned
	MaxScanBytes int64     // output bytes read before giving up
	MaxLineBytes int       // matched lines are cut to this many bytes
}

// Match is one matching line.
type Match struct {
	SessionID string
	Line      int64 // 1-based line number in the session's output
	Text      string
	Time      time.Time // when the record holding the line was written
}

// SearchResult is what Search found.
type SearchResult struct {
	Matches  []Match
	Scanned  int64 // output bytes read
	Sessions int   // sessions searched (fully or partly)
	Complete bool  // every selected session was searched to its start
}

// Search finds lines matching re (over clean text: escape sequences
// stripped) across recorded sessions, newest session first and newest line
// first within a session, until MaxResults or MaxScanBytes.
func (s *Store) Search(re *regexp.Regexp, o SearchOptions) (SearchResult, error) {
	if err := s.ready(); err != nil {
		return SearchResult{}, err
	}
	var ids []string
	if o.SessionIDs != nil {
		ids = o.SessionIDs
	} else {
		all, err := s.Sessions(o.Since, 0)
		if err != nil {
			return SearchResult{}, err
		}
		for _, r := range all {
			ids = append(ids, r.ID)
		}
	}
	s.Sync(syncWait)
	res := SearchResult{Complete: true}
	for _, id := range ids {
		res.Sessions++
		done, err := s.searchSession(id, re, o, &res)
		if err != nil {
			return res, fmt.Errorf("search %s: %w", id, err)
		}
		if done {
			res.Complete = false
			break
		}
	}
	if len(res.Matches) >= o.MaxResults {
		res.Complete = false
	}
	return res, nil
}

// searchSession scans one session's output from its end backwards. It
// returns true when a bound was hit.
func (s *Store) searchSession(id string, re *regexp.Regexp, o SearchOptions, res *SearchResult) (bool, error) {
	rows, err := s.db.Query(`SELECT line, t, size, seg, pos FROM records WHERE sid=? AND kind=0 ORDER BY off DESC`, id)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	segs := s.segReader(id)
	defer segs.close()
	var carry []byte // start of the line after this chunk, continued here
	var carryLine int64
	var carryT int64
	first := true
	emit := func(line []byte, n int64, t int64) bool {
		var text string
		if termtext.IsPlain(line) {
			// Plain text cleans to itself: no copy unless it matches.
			if !re.Match(line) {
				return false
			}
			text = string(line)
		} else if text, _ = termtext.Clean(line, true); !re.MatchString(text) {
			return false
		}
		if len(text) > o.MaxLineBytes {
			text = text[:o.MaxLineBytes]
		}
		res.Matches = append(res.Matches, Match{SessionID: id, Line: n, Text: text, Time: time.Unix(0, t)})
		return len(res.Matches) >= o.MaxResults
	}
	for rows.Next() {
		var line, t, size, seg, pos int64
		if err := rows.Scan(&line, &t, &size, &seg, &pos); err != nil {
			return false, err
		}
		data, err := segs.read(seg, pos, size)
		if err != nil {
			return false, err
		}
		res.Scanned += int64(len(data))
		buf := append(data, carry...)
		// Lines after the first newline in buf are complete; walk them
		// newest first. Line k (0-based after the chunk's start) is
		// number line+k+1.
		end := len(buf)
		if first && end > 0 && buf[end-1] == '\n' {
			end-- // the output ends with a newline: no empty line after it
		}
		first = false
		k := line + int64(bytes.Count(buf[:end], []byte{'\n'}))
		for {
			i := bytes.LastIndexByte(buf[:end], '\n')
			if i < 0 {
				break
			}
			if emit(buf[i+1:end], k+1, max(t, carryT)) {
				return true, nil
			}
			end = i
			k--
		}
		carry = append([]byte(nil), buf[:end]...)
		carryLine, carryT = line+1, t
		if res.Scanned >= o.MaxScanBytes {
			return true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	if len(carry) > 0 {
		return emit(carry, carryLine, carryT), nil
	}
	return false, nil
}
