package outlog

import (
	"bytes"
	"sort"
	"sync"
	"time"
)

// blockSize is the unit of eviction. Blocks start small and grow, so an idle
// session that printed a prompt holds a few hundred bytes, not a full block.
const blockSize = 64 << 10

// DefaultLimit is the default number of output bytes a session keeps in memory.
const DefaultLimit = 16 << 20

// block holds a contiguous run of the log.
type block struct {
	off  int64 // absolute offset of data[0]
	line int64 // newlines before off
	data []byte
	segs []seg // stream runs inside data, sorted by at; segs[0].at == 0
}

// seg marks that bytes from at (index into data) on came from stream s.
type seg struct {
	at int
	s  Stream
}

// streamAt returns the stream of data[i] and the index where that run ends.
func (b *block) streamAt(i int) (Stream, int) {
	k := sort.Search(len(b.segs), func(k int) bool { return b.segs[k].at > i }) - 1
	end := len(b.data)
	if k+1 < len(b.segs) {
		end = b.segs[k+1].at
	}
	return b.segs[k].s, end
}

// Memory is a Log held in RAM with a byte limit.
type Memory struct {
	limit int64

	mu       sync.Mutex
	blocks   []*block      // guarded by mu; never empty after the first Append
	start    int64         // guarded by mu; first retained offset
	end      int64         // guarded by mu
	lines    int64         // guarded by mu; newlines ever appended
	retained int64         // guarded by mu
	closed   bool          // guarded by mu
	lastAt   int64         // guarded by mu
	notify   chan struct{} // guarded by mu; closed and replaced on change
}

// NewMemory returns an empty log keeping at most limit bytes (<= 0 means
// DefaultLimit). At least the newest block is always kept.
func NewMemory(limit int64) *Memory {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Memory{limit: limit, notify: make(chan struct{})}
}

// Append implements Log.
func (m *Memory) Append(s Stream, p []byte) {
	m.append(s, p, nil)
}

// AppendShared is Append that also reports what the log took in: the
// newlines in p, and p's bytes as the log holds them, appended to dst as
// slices of its own blocks (none when the log is closed). A block is only
// ever appended to, never changed or reused, so these bytes stay the same
// after the log evicts the block: a caller may keep them instead of a copy
// of p (the transcript store queues them for disk). Bytes that continue
// dst's last slice in the same block extend it. Each slice's capacity ends
// at its length, so appending to one cannot write into the log.
func (m *Memory) AppendShared(s Stream, p []byte, dst [][]byte) (nl int64, shared [][]byte) {
	nl = m.append(s, p, &dst)
	return nl, dst
}

// append is Append, also adding the stored slices to *dst unless dst is nil.
func (m *Memory) append(s Stream, p []byte, dst *[][]byte) (nl int64) {
	if len(p) == 0 {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0
	}
	for len(p) > 0 {
		b := m.tail()
		room := blockSize - len(b.data)
		if room == 0 {
			// A full block means output streams: the next one is made
			// whole at once instead of grown by copying.
			b = m.newBlock(blockSize)
			room = blockSize
		}
		n := min(room, len(p))
		if k := len(b.segs); k == 0 || b.segs[k-1].s != s {
			b.segs = append(b.segs, seg{at: len(b.data), s: s})
		}
		at := len(b.data)
		b.data = append(b.data, p[:n]...)
		if dst != nil {
			*dst = appendShared(*dst, b.data, at, n)
		}
		c := int64(bytes.Count(p[:n], []byte{'\n'}))
		nl += c
		m.lines += c
		m.end += int64(n)
		m.retained += int64(n)
		p = p[n:]
	}
	m.evict()
	m.lastAt = time.Now().UnixNano()
	close(m.notify)
	m.notify = make(chan struct{})
	return nl
}

// appendShared adds data[at:at+n] to dst, extending dst's last slice
// when that one ends at data[at] in the same array, so a record made of
// many small appends is a slice per block rather than per append.
func appendShared(dst [][]byte, data []byte, at, n int) [][]byte {
	if k := len(dst); k > 0 && at > 0 {
		if last := dst[k-1]; len(last) > 0 && len(last) <= at && &last[len(last)-1] == &data[at-1] {
			dst[k-1] = data[at-len(last) : at+n : at+n]
			return dst
		}
	}
	return append(dst, data[at:at+n:at+n])
}

// tail returns the last block, creating the first one lazily.
func (m *Memory) tail() *block {
	if len(m.blocks) == 0 {
		return m.newBlock(0)
	}
	return m.blocks[len(m.blocks)-1]
}

func (m *Memory) newBlock(hint int) *block {
	c := min(max(hint, 512), blockSize)
	b := &block{off: m.end, line: m.lines, data: make([]byte, 0, c)}
	m.blocks = append(m.blocks, b)
	return b
}

// evict drops head blocks while over the limit, keeping the newest block.
func (m *Memory) evict() {
	drop := 0
	for m.retained > m.limit && drop < len(m.blocks)-1 {
		m.retained -= int64(len(m.blocks[drop].data))
		drop++
	}
	if drop == 0 {
		return
	}
	clear(m.blocks[:drop])
	m.blocks = m.blocks[drop:]
	m.start = m.blocks[0].off
}

// CloseWrite implements Log.
func (m *Memory) CloseWrite() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.closed = true
	close(m.notify) // left closed: every later Changed returns at once
}

// Changed implements Log.
func (m *Memory) Changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.notify
}

// Stats implements Log.
func (m *Memory) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Stats{Start: m.start, End: m.end, StartLine: m.startLine(), Lines: m.lines,
		Retained: m.retained, Closed: m.closed, LastWrite: m.lastAt}
}

func (m *Memory) startLine() int64 {
	if len(m.blocks) == 0 {
		return m.lines
	}
	return m.blocks[0].line
}

// find returns the index of the block holding off; off must be retained.
func (m *Memory) find(off int64) int {
	return sort.Search(len(m.blocks), func(i int) bool {
		b := m.blocks[i]
		return b.off+int64(len(b.data)) > off
	})
}

// lineAt is LineAt under mu.
func (m *Memory) lineAt(off int64) int64 {
	if off <= m.start {
		return m.startLine()
	}
	if off >= m.end {
		return m.lines
	}
	b := m.blocks[m.find(off)]
	return b.line + int64(bytes.Count(b.data[:off-b.off], []byte{'\n'}))
}

// LineAt implements Log.
func (m *Memory) LineAt(off int64) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lineAt(off)
}

// OffsetAfterLine implements Log.
func (m *Memory) OffsetAfterLine(n int64) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n <= m.startLine() {
		return m.start
	}
	if n >= m.lines {
		return m.end
	}
	i := sort.Search(len(m.blocks), func(i int) bool { return m.blocks[i].line >= n }) - 1
	b := m.blocks[i]
	need := n - b.line
	for j, c := range b.data {
		if c == '\n' {
			need--
			if need == 0 {
				return b.off + int64(j) + 1
			}
		}
	}
	return m.end // unreachable when counts are consistent
}

// Read implements Log.
func (m *Memory) Read(from, fromLine int64, max int, streams Stream) Slice {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Slice{From: from, End: m.end}
	if from < m.start || from == m.start && fromLine >= 0 && fromLine < m.startLine() {
		s.LostBytes = m.start - from
		s.LostLines = -1
		if fromLine >= 0 {
			s.LostLines = m.startLine() - fromLine
		}
		s.From = m.start
	}
	if s.From > m.end {
		s.From = m.end
	}
	off := s.From
	if max <= 0 {
		max = int(m.end - off)
	}
	if off < m.end {
		for i := m.find(off); i < len(m.blocks) && len(s.Data) < max; i++ {
			b := m.blocks[i]
			j := int(off - b.off)
			for j < len(b.data) && len(s.Data) < max {
				st, runEnd := b.streamAt(j)
				if st&streams != 0 {
					n := min(runEnd-j, max-len(s.Data))
					if s.Data == nil {
						// One allocation of the most the read can take: a
						// screen feeder reads megabytes at a time, which
						// growing by append would copy twice.
						s.Data = make([]byte, 0, min(int64(max), m.end-b.off-int64(j)))
					}
					s.Data = append(s.Data, b.data[j:j+n]...)
					j += n
				} else {
					j = runEnd
				}
			}
			off = b.off + int64(j)
		}
	}
	s.Next = off
	s.EOF = m.closed && s.Next == m.end
	return s
}
