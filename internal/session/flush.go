package session

import (
	"time"

	"github.com/agentty/agentty/internal/inputwait"
)

// inputFlusher is a process whose terminal can be made to take in, at
// once, every byte written to it so far (backend's local PTY).
type inputFlusher interface {
	FlushInput() error
}

// flushInput, after Send's write returned, makes the terminal take in the
// input and records when that was done in the gate armed at gateAt. It
// reports false when the process cannot flush (the gate then keeps its
// timed hold, and Send probes the readers for the Delivered rule).
//
// Why this lets the gate open at once: a write to a PTY master only queues
// the bytes; the kernel hands them to the line discipline later, possibly
// in pieces, and a reader can be asleep while a piece is still on its way.
// That is what the 0.5 ms hold (gateConfirm) waited out. After the flush
// no reader is asleep while input written before it is on its way: the
// hand-over ran (and woke whoever the bytes were for), or input was
// available and so nobody slept on it. A reader that sleeps later does so
// in read, select or poll, which take in pending input themselves first.
func (s *Session) flushInput(gateAt time.Time) bool {
	f, ok := s.proc.(inputFlusher)
	if !ok || f.FlushInput() != nil {
		return false
	}
	done := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.gate.active || !s.gate.at.Equal(gateAt) {
		return false
	}
	s.gate.flushedAt = done
	return true
}

// flushedBefore reports that probe p, begun at now, found the program
// asleep on the input after the input armed in g was flushed into the
// terminal, in calls that take in pending input before they sleep (read,
// select, poll: inputwait.Readers.Flushing). Such a verdict is final.
// epoll_wait need not ask the terminal again before sleeping, so epoll
// readers keep the timed gate.
func flushedBefore(g inputGate, now time.Time, p inputwait.Probe) bool {
	return !g.flushedAt.IsZero() && now.After(g.flushedAt) && p.Readers.Flushing
}
