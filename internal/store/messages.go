package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Message is one record of a session's transcript: output the program
// wrote, input an agent sent, or an event (resize, signal, exit, gap).
type Message struct {
	ID       int64
	Type     string // "output", "input" or "event"
	Time     time.Time
	Size     int64 // bytes of output or input; for a gap, bytes missing
	Offset   int64 // output offset (for input and events: output so far)
	Line     int64 // newlines before Offset
	Stream   string
	Event    string // resize, signal, exit, gap
	From     string // who sent an input
	Redacted bool   // input typed at a password prompt: content not kept
	Content  []byte // full or a prefix, as asked

	seg, pos int64 // output: where the bytes are
}

// outputContent reads [at, at+max) of an output message from its segment.
func (s *Store) outputContent(sid string, m Message, at, max int64) ([]byte, error) {
	if at >= m.Size {
		return nil, nil
	}
	return s.chunkData(sid, m.seg, m.pos+at, min(max, m.Size-at))
}

var kindNames = [...]string{kindOutput: "output", kindInput: "input", kindEvent: "event"}

// KindOf maps a message type name to its kind; ok is false for unknown names.
func KindOf(name string) (int, bool) {
	for k, n := range kindNames {
		if n == name {
			return k, true
		}
	}
	return 0, false
}

const messageCols = `id, kind, t, size, off, line, stream, event, who, redacted, seg, pos`

func scanMessage(sc scanner, content *[]byte) (Message, error) {
	var m Message
	var kind, stream int
	var t int64
	dest := []any{&m.ID, &kind, &t, &m.Size, &m.Offset, &m.Line, &stream, &m.Event, &m.From, &m.Redacted, &m.seg, &m.pos}
	if content != nil {
		dest = append(dest, content)
	}
	if err := sc.Scan(dest...); err != nil {
		return m, err
	}
	m.Type, m.Time = kindNames[kind], time.Unix(0, t)
	if kind == kindOutput {
		m.Stream = [...]string{1: "stdout", 2: "stderr"}[min(stream, 2)]
	}
	return m, nil
}

// MessageQuery selects messages of one session.
type MessageQuery struct {
	AfterID int64 // only ids greater than this (paging)
	Limit   int   // most messages returned
	Kinds   []int // nil: all kinds
	Preview int   // bytes of content returned per message
}

// Messages lists a session's records in the order they happened. more
// says whether further records match after the last returned.
func (s *Store) Messages(sid string, q MessageQuery) (msgs []Message, more bool, err error) {
	if err := s.ready(); err != nil {
		return nil, false, err
	}
	s.Sync(syncWait)
	kindMask := 0
	for _, k := range q.Kinds {
		kindMask |= 1 << k
	}
	if kindMask == 0 {
		kindMask = 7
	}
	rows, err := s.db.Query(`SELECT `+messageCols+`, substr(data, 1, ?) FROM records
		WHERE sid=? AND id>? AND ((1<<kind) & ?) != 0 ORDER BY id LIMIT ?`, q.Preview, sid, q.AfterID, kindMask, q.Limit+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var content []byte
		m, err := scanMessage(rows, &content)
		if err != nil {
			return nil, false, err
		}
		m.Content = content
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	for i := range msgs {
		if msgs[i].Type == "output" {
			if msgs[i].Content, err = s.outputContent(sid, msgs[i], 0, int64(q.Preview)); err != nil {
				return nil, false, err
			}
		}
	}
	if len(msgs) > q.Limit {
		msgs, more = msgs[:q.Limit], true
	}
	return msgs, more, rows.Err()
}

// Message returns one record with up to max bytes of its content from byte
// offset at.
func (s *Store) Message(sid string, id int64, at, max int64) (Message, error) {
	if err := s.ready(); err != nil {
		return Message{}, err
	}
	s.Sync(syncWait)
	var content []byte
	m, err := scanMessage(s.db.QueryRow(`SELECT `+messageCols+`, substr(data, ?, ?) FROM records WHERE sid=? AND id=?`,
		at+1, max, sid, id), &content)
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("%w: message %d of session %s", ErrNotFound, id, sid)
	}
	if err != nil {
		return m, err
	}
	m.Content = content
	if m.Type == "output" {
		m.Content, err = s.outputContent(sid, m, at, max)
	}
	return m, err
}
