package store

import "time"

// room reports whether n more output bytes keep the store within MaxLag of
// what was appended. s.mu must be held. An append larger than MaxLag on its
// own (never a pump's read) passes once nothing else is waiting.
func (s *Store) room(n int64) bool {
	return s.lagBytes == 0 || s.lagBytes+n <= s.opt.MaxLag
}

// waitRoom holds an Append of n bytes to l until the store has room for
// them: this is the backpressure that bounds what a SIGKILL can lose. The
// caller is the pump (or a Quiet or collect reading for it), so while it
// waits the program's bytes stay in the kernel's pipe or terminal buffer
// and the program blocks in write, as it would on a slow terminal.
//
// s.mu must be held; it is released while waiting and held again on
// return. It gives up after MaxStall without a commit (the writer is stuck:
// enqueueOutput then records a gap, and later appends go to that gap
// without waiting until the writer frees room), and at once when the store
// closes.
func (s *Store) waitRoom(l *Log, n int64) {
	if s.closed || l.gapBytes > 0 || s.room(n) {
		return
	}
	stall := time.NewTimer(s.opt.MaxStall)
	defer stall.Stop()
	for !s.closed && !s.room(n) {
		ch := s.commitCh
		s.mu.Unlock()
		// The writer may be holding for its next slot with less than
		// CommitAt queued: the room is wanted now.
		s.commitNow()
		select {
		case <-ch:
		case <-stall.C:
			s.mu.Lock()
			s.log.Warn("store writer made no progress; output goes to memory only until it does",
				"session", l.id, "waited", s.opt.MaxStall)
			return
		case <-s.ctx.Done():
			s.mu.Lock()
			return
		}
		s.mu.Lock()
	}
}
