package session

import (
	"context"
	"time"
)

// Limit names recorded in EndedBy.
const (
	EndedByIdle    = "idle_timeout"
	EndedByRuntime = "max_runtime"
)

// armLimits starts the session's limit timer when an idle timeout or a
// maximum runtime is configured. One timer per session, re-armed for the
// nearest deadline; it is stopped when the session exits.
func (s *Session) armLimits() {
	cfg := s.mgr.cfg
	if cfg.IdleTimeout <= 0 && cfg.MaxRuntime <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status != nil {
		return
	}
	_, next := s.limitDue(time.Now())
	s.limitTimer = time.AfterFunc(next, s.checkLimits)
}

func (s *Session) disarmLimits() {
	s.mu.Lock()
	if s.limitTimer != nil {
		s.limitTimer.Stop()
	}
	s.mu.Unlock()
}

// limitDue says which limit is reached at now, or how long until the next
// check. Called with mu held.
func (s *Session) limitDue(now time.Time) (string, time.Duration) {
	cfg := s.mgr.cfg
	next := time.Duration(1<<63 - 1)
	if cfg.MaxRuntime > 0 {
		left := s.Started.Add(cfg.MaxRuntime).Sub(now)
		if left <= 0 {
			return EndedByRuntime, 0
		}
		next = left
	}
	if cfg.IdleTimeout > 0 {
		left := s.lastUse.Add(cfg.IdleTimeout).Sub(now)
		if left <= 0 {
			return EndedByIdle, 0
		}
		next = min(next, left)
	}
	return "", next
}

// checkLimits runs on the timer's goroutine. While it terminates a session
// it holds a place in the Manager's WaitGroup, so Close waits for it.
func (s *Session) checkLimits() {
	m := s.mgr
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	defer m.wg.Done()

	s.mu.Lock()
	if s.status != nil {
		s.mu.Unlock()
		return
	}
	why, next := s.limitDue(time.Now())
	if why == "" {
		s.limitTimer.Reset(next) // used since the timer was set: not idle yet
		s.mu.Unlock()
		return
	}
	s.endedBy = why
	s.mu.Unlock()
	m.log.Info("session limit reached; terminating", "session", s.ID, "limit", why)
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.KillGrace+5*time.Second)
	defer cancel()
	if _, err := s.Terminate(ctx, m.cfg.KillGrace); err != nil {
		m.log.Warn("terminate after limit failed", "session", s.ID, "limit", why, "err", err)
	}
}

// EndedBy is the limit that made agentty end the session ("" if none).
func (s *Session) EndedBy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endedBy
}
