package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/procs"
	"github.com/agentty/agentty/internal/record"
)

// Record kinds in the records table.
const (
	kindOutput = 0
	kindInput  = 1
	kindEvent  = 2
)

type opKind uint8

const (
	opRecord opKind = iota // a row of records
	opStart                // a new session row
	opExit                 // a session's final status
	opDelete               // remove a session's records and files (done reports)
)

// op is one queued write. Output ops stay open for more contiguous bytes
// of the same stream until the writer takes them.
type op struct {
	kind     opKind
	rkind    int  // records.kind for opRecord
	log      *Log // output: whose durable offset the commit moves
	sid      string
	t        int64 // unix ns
	off      int64
	line     int64
	nl       int64
	stream   uint8
	size     int64
	data     []byte   // an input's or event's bytes
	parts    [][]byte // output: the bytes, slices of the memory log's blocks
	event    string
	who      string
	redacted bool
	start    *record.Start
	exit     *record.ExitStatus
	done     chan error // opDelete: the result
}

// push queues o; s.mu must be held.
func (s *Store) push(o *op) {
	s.pending = append(s.pending, o)
	s.enq++
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// recordParts is room for the slices of a full output record: maxChunk
// spans four of the memory log's 64 KiB blocks, five when it starts inside
// one, so a streaming record's slice list is allocated once.
const recordParts = 5

// enqueueOutput appends p to l's memory log and queues it for disk, or
// records it as part of a gap when there is no room (waitRoom gave up on a
// stuck writer); it returns the newlines in p. s.mu must be held (it orders the queue with
// the memory log's offsets). The queue keeps the memory log's own copy of
// the bytes (outlog.Memory.AppendShared) rather than a second one: its
// blocks never change, so an evicted block stays exact until committed.
func (s *Store) enqueueOutput(l *Log, stream outlog.Stream, p []byte, off, line int64) int64 {
	n := int64(len(p))
	if s.closed {
		l.mem.Append(stream, p)
		return int64(bytes.Count(p, []byte{'\n'}))
	}
	if !s.room(n) {
		l.mem.Append(stream, p)
		nl := int64(bytes.Count(p, []byte{'\n'}))
		if l.gapBytes == 0 {
			l.gapFrom, l.gapLine = off, line
		}
		l.gapBytes += n
		l.gapNL += nl
		return nl
	}
	if l.gapBytes > 0 {
		s.closeGap(l, time.Now().UnixNano())
	}
	s.pendBytes += n
	s.lagBytes += n
	o := l.open
	if o == nil || o.stream != uint8(stream) || o.off+o.size != off || o.size+n > maxChunk {
		o = &op{kind: opRecord, rkind: kindOutput, log: l, sid: l.id, t: time.Now().UnixNano(), off: off, line: line,
			stream: uint8(stream), parts: make([][]byte, 0, recordParts)}
		l.open = o
		s.push(o)
	}
	nl, parts := l.mem.AppendShared(stream, p, o.parts)
	o.parts = parts
	o.nl += nl
	o.size += n
	// Once, as the queue crosses CommitAt: the nudge stays buffered until
	// the writer takes it, so later appends need not repeat it.
	if c := s.opt.CommitAt; c > 0 && s.pendBytes >= c && s.pendBytes-n < c {
		s.commitNow()
		procs.Busy() // the writer is behind the output: give it a CPU of its own
	}
	return nl
}

// commitNow asks the writer for a commit without waiting for its slot.
func (s *Store) commitNow() {
	for _, c := range []chan struct{}{s.wake, s.nudge} {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// closeGap records the output l dropped from the store. s.mu must be held.
func (s *Store) closeGap(l *Log, now int64) {
	if l.gapBytes == 0 {
		return
	}
	msg := fmt.Sprintf("output bytes %d-%d not stored: the disk writer made no progress for %v", l.gapFrom, l.gapFrom+l.gapBytes, s.opt.MaxStall)
	// The gap moves the session's end like output does (log set), but
	// adds nothing on disk.
	s.push(&op{kind: opRecord, rkind: kindEvent, log: l, sid: l.id, t: now, off: l.gapFrom, line: l.gapLine,
		nl: l.gapNL, size: l.gapBytes, event: "gap", data: []byte(msg)})
	s.log.Warn("store gap", "session", l.id, "from", l.gapFrom, "bytes", l.gapBytes)
	l.open = nil
	l.gapBytes, l.gapNL = 0, 0
}

// enqueueEvent queues a non-output record of session id.
func (s *Store) enqueueEvent(o *op) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if l := s.live[o.sid]; l != nil {
		o.off, o.line = l.end.Load(), l.lines.Load()
		// Later output must not be folded into a record older than this one.
		l.open = nil
	}
	s.push(o)
}

// writer is the only goroutine writing transcripts: it commits everything
// queued at most every CommitInterval, sooner when a reader needs it or the
// queue passes Options.CommitAt.
func (s *Store) writer(ctx context.Context) {
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	var last time.Time
	lastRetain := time.Now()
	for {
		select {
		case <-ctx.Done():
			s.commitPending()
			return
		case <-beat.C:
			s.beat()
			if time.Since(lastRetain) >= retentionEvery {
				lastRetain = time.Now()
				if err := s.retain(lastRetain); err != nil {
					s.log.Warn("store retention failed", "err", err)
				}
			}
			continue
		case <-s.wake:
		}
		s.holdUntil(ctx, last.Add(s.opt.CommitInterval))
		last = time.Now()
		s.commitPending()
	}
}

// holdUntil waits for the next commit slot unless a reader asks for a
// commit now (Sync) or the store closes.
func (s *Store) holdUntil(ctx context.Context, at time.Time) {
	d := time.Until(at)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.nudge:
	case <-ctx.Done():
	}
}

// commitPending takes the whole queue and commits it in one transaction.
func (s *Store) commitPending() {
	s.mu.Lock()
	batch := s.pending
	taken := s.pendBytes
	s.pending = nil
	s.pendBytes = 0
	for _, o := range batch {
		if o.log != nil && o.log.open == o {
			o.log.open = nil
		}
	}
	// The queue has room again: a gap still open is recorded now rather
	// than at the next output, so it is on disk even if none comes.
	now := time.Now().UnixNano()
	for _, l := range s.live {
		if l.gapBytes > 0 {
			s.closeGap(l, now)
			batch = append(batch, s.pending...)
			s.pending = s.pending[:0]
		}
	}
	s.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	touched, err := s.commit(batch)
	if err != nil {
		s.log.Error("store commit failed; these records are not on disk", "records", len(batch), "err", err)
		for _, o := range batch {
			if o.kind == opDelete {
				o.done <- err
			}
		}
	}
	s.mu.Lock()
	s.committed += uint64(len(batch))
	// Committed or failed (then logged): either way no longer waiting, so
	// appends held by waitRoom go on.
	s.lagBytes -= taken
	close(s.commitCh)
	s.commitCh = make(chan struct{})
	s.mu.Unlock()
	if err == nil {
		for l := range touched {
			if l.diskBytes > s.opt.MaxSessionBytes {
				if err := s.pruneSession(l); err != nil {
					s.log.Warn("store: prune session", "session", l.id, "err", err)
				}
			}
		}
	}
}

// commit writes batch in one transaction and returns the logs it moved.
func (s *Store) commit(batch []*op) (map[*Log]struct{}, error) {
	tx, err := s.wdb.Begin()
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	ins, err := tx.Prepare(`INSERT INTO records(sid, kind, t, off, line, nl, stream, size, event, who, redacted, data, seg, pos) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	type progress struct{ end, lines, added int64 }
	moved := map[*Log]*progress{}
	var deletes []*op
	now := time.Now().UnixNano()
	for _, o := range batch {
		switch o.kind {
		case opRecord:
			var data any
			var seg, pos int64
			switch {
			case o.rkind == kindOutput:
				// The bytes go to the segment file before the index row
				// commits: a crash leaves at most unindexed bytes.
				if seg, pos, err = s.appendSegment(o.sid, o.parts); err != nil {
					return nil, err
				}
			case !o.redacted && o.data != nil:
				data = o.data
			}
			if _, err := ins.Exec(o.sid, o.rkind, o.t, o.off, o.line, o.nl, int(o.stream), o.size, o.event, o.who, o.redacted, data, seg, pos); err != nil {
				return nil, fmt.Errorf("insert record: %w", err)
			}
			if o.log != nil {
				p := moved[o.log]
				if p == nil {
					p = &progress{}
					moved[o.log] = p
				}
				p.end, p.lines = max(p.end, o.off+o.size), max(p.lines, o.line+o.nl)
				if o.rkind == kindOutput {
					p.added += o.size
				}
			}
		case opStart:
			if err := insertSession(tx, o.start, s.owner, s.ownerStart, now); err != nil {
				return nil, err
			}
		case opDelete:
			deletes = append(deletes, o)
		case opExit:
			if o.exit.Lost != "" {
				// The ending is unknown (a remote connection dropped): the
				// session is lost, not exited with a made-up status.
				if _, err := tx.Exec(`UPDATE sessions SET state='lost', lost_at=?, lost_reason=?, last_seen=? WHERE id=?`,
					o.t, o.exit.Lost, now, o.sid); err != nil {
					return nil, fmt.Errorf("record lost: %w", err)
				}
				continue
			}
			var code any
			if o.exit.Signal == "" {
				code = o.exit.Code
			}
			if _, err := tx.Exec(`UPDATE sessions SET state='exited', exit_code=?, signal=?, exited_at=?, last_seen=? WHERE id=?`,
				code, o.exit.Signal, o.t, now, o.sid); err != nil {
				return nil, fmt.Errorf("record exit: %w", err)
			}
		}
	}
	for l, p := range moved {
		// An upsert: the pump can produce output, and the writer commit
		// it, before the engine reports the start.
		if _, err := tx.Exec(`INSERT INTO sessions(id, bytes, lines, disk_bytes, last_seen, owner_pid, owner_start) VALUES(?,?,?,?,?,?,?)
			ON CONFLICT(id) DO UPDATE SET bytes=MAX(bytes, excluded.bytes), lines=MAX(lines, excluded.lines),
			disk_bytes=disk_bytes+excluded.disk_bytes, last_seen=excluded.last_seen`,
			l.id, p.end, p.lines, p.added, now, s.owner, s.ownerStart); err != nil {
			return nil, fmt.Errorf("record progress: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	out := make(map[*Log]struct{}, len(moved))
	for l, p := range moved {
		l.durable.Store(p.end)
		l.diskBytes += p.added
		out[l] = struct{}{}
	}
	// Deletes run after the batch so records queued before them go too.
	for _, o := range deletes {
		n, err := s.deleteSession(o.sid)
		if err == nil && n == 0 {
			err = fmt.Errorf("%w: session %s", ErrNotFound, excerpt.Q(o.sid))
		}
		o.done <- err
	}
	return out, nil
}

func insertSession(tx *sql.Tx, r *record.Start, owner int, ownerStart, now int64) error {
	argv, _ := json.Marshal(r.Argv)
	env, _ := json.Marshal(r.EnvKeys)
	if r.EnvKeys == nil {
		env = []byte("[]")
	}
	_, err := tx.Exec(`INSERT INTO sessions(id, name, command, argv, cwd, env_keys, mode, host, pid, owner_pid, owner_start, rows, cols, started_at, last_seen, state)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'running')
		ON CONFLICT(id) DO UPDATE SET name=excluded.name, command=excluded.command, argv=excluded.argv, cwd=excluded.cwd,
		env_keys=excluded.env_keys, mode=excluded.mode, host=excluded.host, pid=excluded.pid, owner_pid=excluded.owner_pid, owner_start=excluded.owner_start,
		rows=excluded.rows, cols=excluded.cols, started_at=excluded.started_at, last_seen=excluded.last_seen`,
		r.ID, r.Name, r.Command, string(argv), r.Cwd, string(env), string(r.Mode), r.Host, r.PID, owner, ownerStart, r.Rows, r.Cols,
		r.Started.UnixNano(), now)
	if err != nil {
		return fmt.Errorf("record session: %w", err)
	}
	return nil
}

// beat refreshes last_seen of this server's running sessions.
func (s *Store) beat() {
	if _, err := s.wdb.Exec(`UPDATE sessions SET last_seen=? WHERE owner_pid=? AND owner_start=? AND state='running'`,
		time.Now().UnixNano(), s.owner, s.ownerStart); err != nil {
		s.log.Warn("store heartbeat failed", "err", err)
	}
}

// Sync waits until everything queued before the call is committed, or
// until timeout passes; it reports whether it was.
func (s *Store) Sync(timeout time.Duration) bool {
	if err := s.ready(); err != nil {
		return false
	}
	s.mu.Lock()
	target := s.enq
	if done := s.committed >= target; done || s.closed {
		s.mu.Unlock()
		return done
	}
	s.mu.Unlock()
	s.commitNow()
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		s.mu.Lock()
		done, ch := s.committed >= target, s.commitCh
		s.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
}
