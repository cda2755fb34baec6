package server

import (
	"context"
	"time"

	"github.com/agentty/agentty/internal/proctree"
)

// startKeepers starts the guard (when configured), the orphan reaper, which
// leaves the sessions' and the guard's own exit statuses alone, and
// returnMemory; the reaper's context stops the last two.
//
// The guard starts in the background, and not before guardDelay has passed
// or a session is about to start: a Go process's start would otherwise
// compete with agentty's own cold start. No session can run unguarded, as
// the guard's start, until it is armed, is a job on the spawner's thread
// that runs before every session's start (proctree.DeferGuard).
func (s *Server) startKeepers(gc *GuardConfig) {
	s.guardDone = make(chan struct{})
	var pending *proctree.PendingGuard
	if gc != nil {
		sp := s.mgr.Spawner()
		pending = proctree.DeferGuard(sp, gc.Exe, gc.Args, s.mgr.Instance())
		s.guardKick = time.AfterFunc(guardDelay, sp.Kick)
	}
	owned := func(pid int) bool {
		if g := s.guard.Load(); g != nil && pid == g.PID() {
			return true
		}
		return s.mgr.Owns(pid)
	}
	var ctx context.Context
	ctx, s.stopReaper = context.WithCancel(context.Background())
	s.reaperDone = make(chan struct{})
	go func() {
		defer close(s.reaperDone)
		memDone := make(chan struct{})
		go func() { defer close(memDone); s.returnMemory(ctx) }()
		defer func() { <-memDone }()
		if pending != nil {
			if g, err := pending.Wait(); err != nil {
				s.log.Warn("no guard process; children may outlive a crash", "err", err)
			} else {
				s.guard.Store(g)
			}
		}
		close(s.guardDone)
		// After the guard is known, so its exit status is never reaped here.
		proctree.RunReaper(ctx, owned)
	}()
}

// guardDelay is how long after New the guard starts if no session asked
// for it first: after a client's first exchange, before its first command.
const guardDelay = 100 * time.Millisecond

// armedGuard starts the guard now if it is still put off, waits for its
// start and returns it (nil: none).
func (s *Server) armedGuard() *proctree.Guard {
	s.mgr.Spawner().Kick()
	<-s.guardDone
	return s.guard.Load()
}

// closeKeepers tells the guard to sweep and waits for it, then stops the
// reaper.
func (s *Server) closeKeepers() {
	if s.guardKick != nil {
		s.guardKick.Stop()
	}
	// The spawner is closed: a guard never needed never starts.
	<-s.guardDone
	if g := s.guard.Load(); g != nil {
		_ = g.Close()
	}
	s.stopReaper()
	<-s.reaperDone
}
