package store

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// syncWait bounds how long a read of old output waits for the writer to
// commit it.
const syncWait = 5 * time.Second

// maxDiskRead bounds one read from disk when the caller asks for "all".
const maxDiskRead = 64 << 20

// Log is a session's output log backed by the store: an outlog.Memory
// holds the recent output (the cache every wait and read_output uses), and
// everything older is read back from disk. Data is missing only where
// retention pruned it (Stats().Start moves) or where the writer was stuck
// (a "gap" event names the range); reads report both as lost bytes.
type Log struct {
	st  *Store
	id  string
	mem *outlog.Memory // nil for a past session read from disk only

	mu    sync.Mutex   // serializes Append, so offsets here match mem's
	end   atomic.Int64 // written under mu; bytes ever appended
	lines atomic.Int64 // written under mu; newlines ever appended

	durable       atomic.Int64 // end offset of committed output
	diskStart     atomic.Int64 // first offset retention kept on disk
	diskStartLine atomic.Int64 // newlines before diskStart

	// Guarded by st.mu: the writer queue's view of this log.
	open     *op   // output record still open for contiguous bytes
	gapFrom  int64 // first byte of the current gap
	gapLine  int64
	gapBytes int64 // bytes dropped since gapFrom; 0: no gap open
	gapNL    int64 // newlines among them

	diskBytes int64 // written by the writer goroutine only

	// A past session's log (mem == nil) is closed and never changes.
	pastClosed bool
	pastLast   int64
	done       chan struct{}
}

// NewLog returns the log of a new session of this server; it is the
// session.Config.NewLog of a store-backed Manager. limit is the memory
// cache's size.
func (s *Store) NewLog(id string, limit int64) outlog.Log {
	if s.ready() != nil {
		return outlog.NewMemory(limit) // the error was the session id's (NextID)
	}
	l := &Log{st: s, id: id, mem: outlog.NewMemory(limit)}
	s.mu.Lock()
	s.live[id] = l
	s.mu.Unlock()
	return l
}

// Append implements outlog.Log: the bytes go to memory and are queued for
// disk. It never waits on readers; it waits on the writer when the store
// lags by MaxLag (waitRoom), which is what keeps a crash's loss bounded.
func (l *Log) Append(stream outlog.Stream, p []byte) {
	if len(p) == 0 || l.mem == nil { // a past session's log is read-only
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mem.Stats().Closed {
		return
	}
	off, line := l.end.Load(), l.lines.Load()
	l.st.mu.Lock()
	defer l.st.mu.Unlock()
	l.st.waitRoom(l, int64(len(p)))
	nl := l.st.enqueueOutput(l, stream, p, off, line)
	// Under st.mu, so an event queued after this output is placed after it.
	l.end.Store(off + int64(len(p)))
	l.lines.Store(line + nl)
}

// CloseWrite implements outlog.Log.
func (l *Log) CloseWrite() {
	if l.mem == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mem.CloseWrite()
	l.st.mu.Lock()
	if !l.st.closed {
		l.st.closeGap(l, time.Now().UnixNano())
	}
	l.st.mu.Unlock()
}

// Changed implements outlog.Log.
func (l *Log) Changed() <-chan struct{} {
	if l.mem == nil {
		return l.done
	}
	return l.mem.Changed()
}

// Stats implements outlog.Log. Start is the first offset still on disk, so
// evicted bytes are only those retention dropped.
func (l *Log) Stats() outlog.Stats {
	start, startLine := l.diskStart.Load(), l.diskStartLine.Load()
	if l.mem == nil {
		end := l.end.Load()
		return outlog.Stats{Start: start, End: end, StartLine: startLine, Lines: l.lines.Load(),
			Retained: end - start, Closed: true, LastWrite: l.pastLast}
	}
	m := l.mem.Stats()
	m.Start, m.StartLine = min(start, m.Start), min(startLine, m.StartLine)
	m.Retained = m.End - m.Start
	return m
}

// memFrom reports whether a read from offset from (line fromLine) can be
// served by memory alone, and the memory's start.
func (l *Log) memFrom(from, fromLine int64) (bool, outlog.Stats) {
	if l.mem == nil {
		return false, outlog.Stats{Start: l.end.Load(), StartLine: l.lines.Load()}
	}
	m := l.mem.Stats()
	if m.Start == 0 {
		return true, m
	}
	ok := from > m.Start || from == m.Start && (fromLine < 0 || fromLine >= m.StartLine)
	return ok, m
}

// Read implements outlog.Log: from memory when it still holds from, else
// from disk up to where memory starts, continued from memory.
func (l *Log) Read(from, fromLine int64, max int, streams outlog.Stream) outlog.Slice {
	inMem, m := l.memFrom(from, fromLine)
	if inMem {
		return l.mem.Read(from, fromLine, max, streams)
	}
	if l.mem != nil && l.durable.Load() < m.Start {
		l.st.Sync(syncWait)
	}
	limit := max
	if limit <= 0 {
		limit = maxDiskRead
	}
	sl := outlog.Slice{From: from, End: l.end.Load()}
	start := l.diskStart.Load()
	if from < start {
		sl.From = start
	}
	d, err := l.st.readOutput(l.id, sl.From, m.Start, limit, streams)
	if err != nil {
		l.st.log.Warn("store: read output", "session", l.id, "err", err)
		d = diskRead{from: m.Start, next: m.Start}
	}
	sl.From, sl.Data, sl.Next = d.from, d.data, d.next
	if sl.From > from {
		sl.LostBytes = sl.From - from
		sl.LostLines = -1
		if fromLine >= 0 {
			sl.LostLines = l.LineAt(sl.From) - fromLine
		}
	}
	if l.mem != nil && sl.Next == m.Start && (max <= 0 || len(sl.Data) < max) {
		rest := max - len(sl.Data)
		if max <= 0 {
			rest = 0
		}
		ms := l.mem.Read(m.Start, -1, rest, streams)
		if ms.LostBytes == 0 {
			sl.Data = append(sl.Data, ms.Data...)
			sl.Next = ms.Next
			sl.End = ms.End
		}
	}
	sl.EOF = l.Stats().Closed && sl.Next == sl.End
	return sl
}

// LineAt implements outlog.Log.
func (l *Log) LineAt(off int64) int64 {
	if inMem, _ := l.memFrom(off, -1); inMem {
		return l.mem.LineAt(off)
	}
	if off <= l.diskStart.Load() {
		return l.diskStartLine.Load()
	}
	if off >= l.end.Load() {
		return l.lines.Load()
	}
	n, err := l.st.lineAt(l.id, off)
	if err != nil {
		l.st.log.Warn("store: line at", "session", l.id, "err", err)
		return l.diskStartLine.Load()
	}
	return n
}

// OffsetAfterLine implements outlog.Log.
func (l *Log) OffsetAfterLine(n int64) int64 {
	if l.mem != nil {
		if m := l.mem.Stats(); n >= m.StartLine && (m.Start == 0 || n > m.StartLine) {
			return l.mem.OffsetAfterLine(n)
		}
	}
	if n <= l.diskStartLine.Load() {
		return l.diskStart.Load()
	}
	if n >= l.lines.Load() {
		return l.end.Load()
	}
	if l.mem != nil {
		l.st.Sync(syncWait)
	}
	off, err := l.st.offsetAfterLine(l.id, n)
	if err != nil {
		l.st.log.Warn("store: offset after line", "session", l.id, "err", err)
		return l.diskStart.Load()
	}
	return off
}
