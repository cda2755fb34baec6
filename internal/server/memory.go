package server

import (
	"context"
	"runtime/debug"
	"time"
)

// memoryCheck is how often returnMemory looks at the number of sessions.
const memoryCheck = 5 * time.Second

// startSettle is when returnMemory gives back what starting left free.
const startSettle = time.Second

// returnMemory gives the memory of removed sessions back to the system.
// A PTY session's screen and output take megabytes of heap; once sessions
// are deleted the Go runtime keeps the freed pages and returns them only
// slowly (200 sessions started and deleted left RSS at 343 MB for minutes
// with 17 MB live), so an idle server would stay at its peak. When
// sessions were deleted since the last look, it collects and returns
// everything free at once (debug.FreeOSMemory: one GC, milliseconds at an
// idle server's heap), at most once per memoryCheck.
//
// Once, startSettle after the start, it does the same unasked: starting
// (package tables, tool schemas, the first requests) grows the heap to a
// few megabytes of which about one stays live, and an idle server should
// not keep the rest.
func (s *Server) returnMemory(ctx context.Context) {
	settle := time.NewTimer(startSettle)
	defer settle.Stop()
	select {
	case <-ctx.Done():
		return
	case <-settle.C:
		debug.FreeOSMemory()
	}
	t := time.NewTicker(memoryCheck)
	defer t.Stop()
	last := s.mgr.Removed()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n := s.mgr.Removed(); n != last {
			debug.FreeOSMemory()
			last = n
		}
	}
}
