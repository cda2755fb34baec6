package server

import (
	"context"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/exemap"
)

// memoryCheck is how often returnMemory looks at the number of sessions.
const memoryCheck = 5 * time.Second

// startSettle is when returnMemory gives back what starting left free.
const startSettle = time.Second

// startGCPercent is the collector's target (GOGC) from New until
// startSettle. Starting allocates a few megabytes (package tables, the
// tools' schemas, the first requests) of which about one stays live; at the
// default 100 the heap crosses its first 4 MiB goal during that and one
// collection runs, which costs a cold start about 3 ms (its page faults
// and sweeping on this machine: 13.5 → 10.5 ms to the tools/list reply).
// At 400 none runs; the settle's FreeOSMemory then collects once and gives
// the start's garbage back.
const startGCPercent = 400

// holdGCForStart raises the collector's target for the start and returns
// what puts it back. A GOGC set by the user is left alone.
func holdGCForStart() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(startGCPercent)
	return sync.OnceFunc(func() { debug.SetGCPercent(prev) })
}

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
// not keep the rest. Both times it also drops the executable's mapped
// pages (giveBack).
func (s *Server) returnMemory(ctx context.Context) {
	settle := time.NewTimer(startSettle)
	defer settle.Stop()
	select {
	case <-ctx.Done():
		s.restoreGC()
		return
	case <-settle.C:
		s.restoreGC()
		s.giveBack()
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
			s.giveBack()
			last = n
		}
	}
}

// giveBack returns the heap's free pages to the system and drops the
// executable's pages from this process's mappings (exemap.Trim): the code
// sessions ran comes back by minor faults when it runs again. Both cost a
// few milliseconds and run only at the start's settle and after sessions
// were removed.
func (s *Server) giveBack() {
	debug.FreeOSMemory()
	if t, err := exemap.Trim(); err != nil {
		s.log.Debug("the executable's pages stay mapped", "err", err)
	} else {
		s.log.Debug("dropped the executable's mapped pages", "mappings", t.Mappings, "bytes", t.Bytes)
	}
}
