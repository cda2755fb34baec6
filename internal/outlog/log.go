// Package outlog records a session's output as an append-only log addressed
// by absolute byte offsets and line numbers.
//
// Design: the output pump appends chunks under a mutex and never waits for a
// reader; readers copy what they need out under the same mutex. "New output"
// is broadcast by closing a channel and replacing it, so a waiter can select
// on it together with its own deadline and context. Memory is bounded: when
// the retained bytes exceed the limit, whole blocks are dropped from the head
// and every later read says exactly how many bytes and lines it lost.
package outlog

// Stream says which output channel of a process a byte came from. PTY output
// is all Stdout; pipe mode keeps stdout and stderr apart.
type Stream uint8

// Streams, usable as a mask when reading.
const (
	Stdout Stream = 1 << iota
	Stderr
	Both = Stdout | Stderr
)

// String names the stream as the tools do.
func (s Stream) String() string {
	switch s {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	case Both:
		return "both"
	}
	return "none"
}

// ParseStream maps a tool argument to a mask; "" means Both.
func ParseStream(name string) (Stream, bool) {
	switch name {
	case "", "both":
		return Both, true
	case "stdout":
		return Stdout, true
	case "stderr":
		return Stderr, true
	}
	return 0, false
}

// Log is the seam between the session engine and where output is kept. The
// in-memory Memory log implements it now; a durable transcript store slots in
// behind the same methods without changing the tools.
type Log interface {
	// Append records p as output of stream s. It never blocks on readers.
	Append(s Stream, p []byte)
	// CloseWrite marks the end of output; Changed channels close for good.
	CloseWrite()
	// Read copies up to max bytes (<= 0: all) of the selected streams
	// starting at absolute offset from. fromLine is the caller's count of
	// newlines before from, or -1 if unknown; it is only used to say how
	// many lines were lost when from has been evicted.
	Read(from, fromLine int64, max int, streams Stream) Slice
	// Stats describes the log now.
	Stats() Stats
	// Changed returns a channel closed at the next Append or CloseWrite.
	Changed() <-chan struct{}
	// LineAt returns how many newlines precede absolute offset off (so the
	// byte at off is on line LineAt(off)+1). Offsets before the retained
	// window report the first retained line.
	LineAt(off int64) int64
	// OffsetAfterLine returns the offset just after the n-th newline (n=0
	// is offset 0), clamped to the retained window and the end.
	OffsetAfterLine(n int64) int64
}

// Slice is the result of a Read.
type Slice struct {
	Data      []byte // bytes of the selected streams, in arrival order
	From      int64  // where the read really started (raised past evicted data)
	Next      int64  // where to continue reading
	End       int64  // end of the log at the time of the read
	LostBytes int64  // bytes evicted between the requested offset and From
	LostLines int64  // newlines among the lost bytes; -1 if the caller gave no line
	EOF       bool   // the log is closed and Next == End
}

// Stats describes a log.
type Stats struct {
	Start     int64 // first retained offset
	End       int64 // total bytes ever appended
	StartLine int64 // newlines before Start
	Lines     int64 // newlines ever appended
	Retained  int64 // bytes held now
	Closed    bool
	LastWrite int64 // unix nanoseconds of the last append, 0 if none
}
