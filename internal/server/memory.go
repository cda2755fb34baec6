package server

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/exemap"
	"github.com/agentty/agentty/internal/procs"
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
// not keep the rest.
//
// It does the same when fewer MCP clients are connected than at the last
// look: a client cut off for not reading its replies leaves what it never
// took (up to the transport's caps, tens of MB) as garbage, and the
// daemon would keep that peak for minutes.
//
// It also drops the executable's mapped pages (exemap.Trim): after each of
// those collections, and after any other once retrimAfter has passed since
// the last trim. The trim waits for the collection's note (notifyGC) so
// that what handling the note touches is dropped too: each page touched
// after a trim maps a whole page-cache folio again.
func (s *Server) returnMemory(ctx context.Context) {
	defer s.restoreGC()
	collected := make(chan struct{}, 1)
	notifyGC(collected, ctx.Done())
	settle := time.NewTimer(startSettle)
	defer settle.Stop()
	t := time.NewTicker(memoryCheck)
	defer t.Stop()
	last, clients := s.mgr.Removed(), s.clients()
	trimmed := time.Now() // no trim before the start settles
	for {
		select {
		case <-ctx.Done():
			return
		case <-settle.C:
			s.restoreGC()
			debug.FreeOSMemory()
			trimmed = time.Time{}
			if s.adaptiveProcs {
				// Once the start settled: at one CPU from the
				// start, the idle server kept about 0.4 MiB more of
				// the runtime's own memory in most starts.
				s.procsOff = procs.Enable()
			}
		case <-t.C:
			n, c := s.mgr.Removed(), s.clients()
			if n != last || c < clients {
				debug.FreeOSMemory()
				trimmed = time.Time{}
			}
			last, clients = n, c
		case <-collected:
			if time.Since(trimmed) >= retrimAfter {
				s.trimExe()
				trimmed = time.Now()
			}
		}
	}
}

// retrimAfter is how long after one trim of the executable's pages a
// collection may bring the next. The runtime collects at least every two
// minutes, idle or not, and a collection looks up the stack maps of every
// goroutine's frames, which maps about 10 MiB of the binary again: an idle
// server went from 15 to 25 MiB VmRSS at its first forced collection. A
// minute between trims bounds what a busy server pays to one round of
// minor faults for its working set a minute.
const retrimAfter = time.Minute

// notifyGC sends on ch, without blocking, after each garbage collection
// until stop is closed. A cleanup on an object nothing references runs
// after the collection that found it so; each one arms the next. It runs
// no goroutine of its own (cleanups run on the runtime's), and reading the
// runtime's counters on a timer instead would itself map pages of the
// binary after every trim.
func notifyGC(ch chan<- struct{}, stop <-chan struct{}) {
	var arm func()
	arm = func() {
		// A pointer field keeps it out of the tiny allocator, whose
		// blocks are shared and may never be collected alone.
		type sentinel struct{ _ *byte }
		runtime.AddCleanup(&sentinel{}, func(struct{}) {
			select {
			case <-stop:
				return
			default:
			}
			// Armed before the note, so the collection a reader of the
			// note sets off finds the next one.
			arm()
			select {
			case ch <- struct{}{}:
			default:
			}
		}, struct{}{})
	}
	arm()
}

// trimExe drops the executable's pages from this process's mappings: the
// code the server runs next comes back by minor faults from the page cache.
func (s *Server) trimExe() {
	if t, err := exemap.Trim(); err != nil {
		s.log.Debug("the executable's pages stay mapped", "err", err)
	} else {
		s.log.Debug("dropped the executable's mapped pages", "mappings", t.Mappings, "bytes", t.Bytes)
	}
}

// clients is the number of MCP clients connected through any front end.
func (s *Server) clients() int {
	srv := s.mcpBuilt.Load()
	if srv == nil {
		return 0
	}
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}
