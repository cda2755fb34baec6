package session

import (
	"time"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/record"
)

// Hooks for layers built on top of a session (the shell integration): they
// scan the raw output for their own marks and keep the default cursor in step
// with what they have already returned.

// RawOutput copies up to max raw bytes (<= 0: all) of the output starting at
// absolute offset from, escape sequences included.
func (s *Session) RawOutput(from int64, max int) outlog.Slice {
	return s.log.Read(from, -1, max, outlog.Both)
}

// Text is the clean text of the output in [from, end), the echoes of typed
// lines left out as reads leave them out.
func (s *Session) Text(from, end int64) string {
	if end <= from {
		return ""
	}
	sl := s.log.Read(from, -1, int(end-from), outlog.Both)
	t, _ := clean(sl.Data, true, false)
	t, _ = s.dropEchoes(t, sl.Data, sl.From, true)
	return t
}

// OutputEnd is the total number of bytes the program has written so far.
func (s *Session) OutputEnd() int64 { return s.log.Stats().End }

// OutputChanged returns a channel closed at the next output (or at the end of
// output), so a waiter can select on it with its own deadline.
func (s *Session) OutputChanged() <-chan struct{} { return s.log.Changed() }

// AwaitingInput reports whether the terminal's foreground process group is
// blocked reading input (decided from the kernel, with the same input gate
// as waits) and every byte the program wrote is already in the log, so a
// caller that scanned the log afterwards has seen everything written before
// the program blocked, and it is owed no answer to a terminal query.
func (s *Session) AwaitingInput() (state record.State, detail string, ok bool) {
	if isDone(s.done) {
		return "", "", false
	}
	p, ok := s.awaitingAnswered(time.Now())
	if !ok {
		return "", "", false
	}
	return stateOf(p.State), p.Detail, true
}

// AdvanceReader moves a reader's cursor forward to off (never backward), for
// output a higher layer has already handed to the agent.
func (s *Session) AdvanceReader(id int, off int64) error {
	r, err := s.reader(id)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if off > r.off {
		r.off, r.line = off, s.log.LineAt(off)
	}
	return nil
}

// SpawnOwned runs start on the spawner thread (so Pdeathsig holds for the
// child) with the orphan reaper held off until the pid it returns is
// recorded as owned; release gives the pid back once the caller has
// collected its exit status. One-shot runs use it so the reaper never takes
// an exit status that os/exec is waiting for.
func (m *Manager) SpawnOwned(start func() (pid int, err error)) (release func(), err error) {
	m.spawnMu.Lock()
	defer m.spawnMu.Unlock()
	var pid int
	m.spawner.Do(func() { pid, err = start() })
	if err != nil {
		return func() {}, err
	}
	m.roots[pid] = nil
	return func() { m.reaped(pid) }, nil
}
