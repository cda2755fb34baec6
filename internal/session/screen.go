package session

// The rendered screen of a PTY session.
//
// Design: the pump only appends to the log, as for every session; a feeder
// goroutine (owned by the Manager's WaitGroup), started when there is
// output to render and ending once it has caught up, follows the log from
// the offset rendered so far and writes into a screen.Screen. So the emulator
// can never slow the pump or the child, it works for any backend whose
// bytes reach the log, and during a flood it reads the whole backlog at once
// and fast-forwards over scrolled-off text (see screen/fastforward.go). A
// read_screen first waits until the feeder has rendered everything the log
// held when the read was decided, so the screen matches the output.
//
// The emulator's answers to terminal queries (cursor position, device
// attributes) go to the PTY through Process.Write with a deadline, from the
// Screen's own goroutine, so a program that never reads its input costs
// nothing but its own answers.
//
// The screen is lazy (screen/lazy.go): until someone reads it or the
// program does something only the emulator can answer, a light responder
// answers the queries, and the emulator is then built by replaying the log
// from its start, resizes included. An idle session thus costs kilobytes,
// not the emulator's megabyte. The screen is built at the latest when the
// output passes maxReplay, so a replay is bounded. A log kept only in
// memory drops its start past its limit, possibly before the feeder gave
// the screen a reason to build: the screen then replays a copy of its own,
// and is built before that passes maxKept.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/screen"
)

// ErrNoScreen is returned by screen reads on sessions without a screen.
var ErrNoScreen = errors.New("no screen")

const (
	// screenChunk is the most the feeder renders in one step; a larger
	// backlog is taken in several.
	screenChunk = 4 << 20
	// replyTimeout bounds delivering one answer to a terminal query.
	replyTimeout = time.Second
	// syncWait bounds how long a screen read waits for the feeder to catch
	// up; past it the result says how many bytes are not rendered yet.
	syncWait = 5 * time.Second
	// keysSyncWait bounds how long sending keys waits for the screen to
	// know the program's key mode; input must not stall behind a lagging
	// emulator.
	keysSyncWait = time.Second
	// While output streams (the last slice rendered was at least
	// streamingBytes), the feeder lets up to coalesceBytes gather for at
	// most coalesceDelay before rendering, unless a reader is waiting:
	// rendering a large slice at once is what lets fast-forward skip the
	// lines that scroll off, instead of drawing each small PTY read.
	// Interactive output (small writes) is rendered at once.
	streamingBytes = 16 << 10
	coalesceBytes  = screenChunk
	coalesceDelay  = 50 * time.Millisecond
	coalescePace   = time.Millisecond
	// maxReplay bounds the output a lazy screen replays when it is built:
	// rendering 64 MiB of plain text (fast-forwarded) takes a fraction of
	// a second; a session that writes more gets its emulator on the way.
	maxReplay = 64 << 20
	// maxKept bounds the copy of its output a lazy screen keeps when the
	// log is kept only in memory (-no-store), which may drop its start:
	// a session that writes more gets its emulator (about 1.2 MiB) on the
	// way, one that writes less keeps at most this.
	maxKept = 256 << 10
)

// screenFeed is a PTY session's emulator and the feeder's progress.
//
// The feeder runs only while there is something to render: new output
// (the session's sink kicks it after each append), a queued resize, the
// end of the log. Caught up, it ends instead of parking, so an idle
// session holds no goroutine for its screen.
type screenFeed struct {
	scr  *screen.Screen
	wake chan struct{} // cap 1: a resize is queued or a reader waits for the screen
	// start runs the feeder on a new goroutine (set by Manager.adopt, which
	// owns it). running is set while a feeder runs or is starting, and for
	// good once one reached the end of the log.
	start   func()
	running atomic.Bool
	// resizeMu is held by Session.Resize across queueing the screen's
	// size and setting the terminal's.
	resizeMu sync.Mutex

	mu       sync.Mutex
	fed      int64              // guarded by mu; log offset rendered up to
	finished bool               // guarded by mu; the feeder reached the end of the log
	progress chan struct{}      // guarded by mu; closed and replaced when fed moves
	resizes  []queuedResize     // guarded by mu; applied when fed reaches at
	last     map[int]lastScreen // guarded by mu; per reader, the rows last returned
}

// queuedResize is a terminal size change at a point in the output: bytes
// before at were written for the old size.
type queuedResize struct {
	at         int64
	rows, cols int
}

// logSource is a session's log as the Source its lazy screen replays.
type logSource struct{ log outlog.Log }

func (l logSource) ReadAt(off int64, max int) ([]byte, int64) {
	sl := l.log.Read(off, -1, max, outlog.Stdout)
	return sl.Data, sl.LostBytes
}

// newScreenFeed makes the screen of a PTY session (nil for pipes or when
// the configuration turns screens off).
func (s *Session) newScreenFeed(rows, cols int) *screenFeed {
	if s.Mode != record.ModePTY || s.mgr.cfg.NoScreen {
		return nil
	}
	// The emulator is built when first needed (screen/lazy.go), from the
	// log, and at the latest when the output reaches maxReplay, so a first
	// read never replays more. A log kept only in memory may drop its start
	// before that: the screen keeps its own copy then, up to maxKept.
	o := screen.Options{Lazy: true, Source: logSource{s.log}, MaxReplay: maxReplay}
	if _, inMemory := s.log.(*outlog.Memory); inMemory {
		o.Source, o.MaxReplay = nil, maxKept
	}
	o.Rows, o.Cols = rows, cols
	o.Reply = func(p []byte) {
		gateAt := s.armInputGate()
		if _, err := s.proc.Write(p, time.Now().Add(replyTimeout)); err != nil {
			s.mgr.log.Debug("terminal query answer not delivered", "session", s.ID, "err", err)
			return
		}
		// As for typed input: until the terminal has taken in the whole
		// answer, a program asleep between its pieces is not asking.
		if !gateAt.IsZero() {
			s.flushInput(gateAt)
		}
	}
	scr, err := screen.New(o)
	if err != nil {
		s.mgr.log.Warn("no screen", "session", s.ID, "err", err)
		return nil
	}
	return &screenFeed{scr: scr, wake: make(chan struct{}, 1), progress: make(chan struct{}), last: map[int]lastScreen{}}
}

// kick starts the feeder unless one runs: output was appended, the log
// closed, or a resize was queued. The pump calls it after every append,
// so while a feeder runs it only reads the flag: a compare-and-swap would
// take the flag's cache line from the feeder each time.
func (f *screenFeed) kick() {
	if !f.running.Load() && f.running.CompareAndSwap(false, true) {
		f.start()
	}
}

// poke has the feeder render now: it wakes one that gathers streaming
// output, or starts one.
func (f *screenFeed) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
	f.kick()
}

// feedScreen is the feeder: it renders the log into the screen until it has
// caught up, and says whether that was the end of the log (the screen is
// closed then, and no feeder starts again).
func (s *Session) feedScreen() (finished bool) {
	f := s.scr
	timer := time.NewTimer(0)
	defer timer.Stop()
	f.mu.Lock()
	off := f.fed
	f.mu.Unlock()
	// streaming: output has been arriving faster than it is rendered
	// (a slice of streamingBytes or more), until the feeder catches up.
	streaming := false
	for {
		sl := s.log.Read(off, -1, screenChunk, outlog.Stdout)
		f.render(sl)
		off = sl.Next
		if sl.EOF {
			f.mu.Lock()
			f.finished = true
			f.advanceLocked(off)
			f.mu.Unlock()
			f.scr.Close()
			return true
		}
		switch {
		case len(sl.Data) >= streamingBytes:
			streaming = true
		case len(sl.Data) == 0:
			// Caught up. An append or close after the read above may
			// have found this feeder running and started none: look
			// once more after giving way, and go on if one came and no
			// other feeder took it. A resize queued meanwhile kicks too.
			f.running.Store(false)
			if st := s.log.Stats(); (st.End == off && !st.Closed) || !f.running.CompareAndSwap(false, true) {
				return false
			}
			streaming = false
			continue
		}
		if streaming {
			s.coalesce(off, timer)
		}
	}
}

// coalesce lets streaming output gather before it is rendered: it returns
// once coalesceBytes are waiting past off, coalesceDelay passed, output
// ended, or someone wants the screen now (wake).
//
// It looks at the log at most once per coalescePace: at a PTY's pace the
// pump appends thousands of chunks a second, and waking on each would cost
// more than rendering them.
func (s *Session) coalesce(off int64, timer *time.Timer) {
	timer.Reset(coalesceDelay)
	defer timer.Stop()
	pace := time.NewTimer(coalescePace)
	defer pace.Stop()
	for {
		changed := s.log.Changed()
		if st := s.log.Stats(); st.End-off >= coalesceBytes || st.Closed {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		case <-s.scr.wake:
			return
		}
		pace.Reset(coalescePace)
		select {
		case <-pace.C:
		case <-timer.C:
			return
		case <-s.scr.wake:
			return
		}
	}
}

// render writes one slice of the log, applying queued resizes at their
// offsets.
func (f *screenFeed) render(sl outlog.Slice) {
	data, at := sl.Data, sl.From
	for {
		f.scr.Lose(sl.LostBytes) // evicted before the feeder read them
		sl.LostBytes = 0
		f.mu.Lock()
		var rz *queuedResize
		if len(f.resizes) > 0 && f.resizes[0].at <= at+int64(len(data)) {
			r := f.resizes[0]
			f.resizes = f.resizes[1:]
			rz = &r
		}
		f.mu.Unlock()
		if rz == nil {
			break
		}
		n := max(0, min(int(rz.at-at), len(data)))
		f.scr.Write(data[:n])
		data, at = data[n:], at+int64(n)
		_ = f.scr.Resize(rz.rows, rz.cols)
	}
	f.scr.Write(data)
	f.mu.Lock()
	f.advanceLocked(sl.Next)
	f.mu.Unlock()
}

func (f *screenFeed) advanceLocked(off int64) {
	f.fed = off
	close(f.progress)
	f.progress = make(chan struct{})
}

// queueResize records a size change at log offset at and wakes the feeder.
func (f *screenFeed) queueResize(at int64, rows, cols int) {
	f.mu.Lock()
	f.resizes = append(f.resizes, queuedResize{at: at, rows: rows, cols: cols})
	f.mu.Unlock()
	f.poke()
}

// syncTo waits until everything before log offset end is rendered (and
// resizes queued before it applied), the feeder finished, or deadline.
// It returns how many bytes are still not rendered.
func (f *screenFeed) syncTo(ctx context.Context, end int64, deadline time.Time) int64 {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for first := true; ; first = false {
		f.mu.Lock()
		pendingResize := len(f.resizes) > 0 && f.resizes[0].at <= end
		done := f.finished || (f.fed >= end && !pendingResize)
		behind, progress := max(0, end-f.fed), f.progress
		f.mu.Unlock()
		if done {
			return 0
		}
		if first {
			// The feeder may be gathering more output; render now.
			f.poke()
		}
		select {
		case <-progress:
		case <-t.C:
			return behind
		case <-ctx.Done():
			return behind
		}
	}
}

// armInputGate marks the program's current "blocked on input" as stale
// until it has run, as Send does: an answer to its query is on the way. It
// returns when it armed the gate (zero if the program could not be probed).
func (s *Session) armInputGate() time.Time {
	p, err := s.proc.Inspect()
	if err != nil {
		return time.Time{}
	}
	at := time.Now()
	s.mu.Lock()
	s.gate = inputGate{active: true, fp: p.Fingerprint, at: at}
	s.mu.Unlock()
	return at
}

// answerLook is where the screen stood with the program's queries at one
// moment: the log's end then, whether answers may be owed for output
// before it, and, when the screen was behind, a channel closed once it has
// rendered more.
type answerLook struct {
	pending  bool
	end      int64
	rendered <-chan struct{}
}

// lookAtAnswers reports whether the program may be waiting for the
// terminal's answer to a query rather than for the agent: output is not
// rendered yet (it may hold a query) or an answer is not delivered yet.
// The program is not awaiting input while this holds.
func (s *Session) lookAtAnswers() answerLook {
	end := s.log.Stats().End
	f := s.scr
	if f == nil {
		return answerLook{end: end}
	}
	f.mu.Lock()
	behind := f.fed < end && !f.finished
	progress := f.progress
	f.mu.Unlock()
	if behind {
		f.poke() // render now rather than after coalescing
		return answerLook{pending: true, end: end, rendered: progress}
	}
	return answerLook{pending: f.scr.PendingReplies() > 0, end: end}
}

// answersOwed decides, with before taken ahead of a probe that found the
// program blocked and quiet, whether it may still be owed an answer. Both
// looks count: an answer delivered between the probe and a later look
// leaves the probe's "blocked" stale (it was the wait for that answer,
// and the answer's input gate was armed after the probe read the gate),
// and output that reached the log after the first look may have held a
// query that was answered since.
func (s *Session) answersOwed(before answerLook) (bool, <-chan struct{}) {
	if s.scr == nil {
		return false, nil
	}
	after := s.lookAtAnswers()
	rendered := after.rendered
	if rendered == nil {
		rendered = before.rendered
	}
	return before.pending || after.pending || after.end != before.end, rendered
}

// inputLook is one look at whether the program waits for the agent.
type inputLook struct {
	probe   inputwait.Probe
	blocked bool // blocked on input, the input gate applied
	quiet   bool // blocked, and everything it wrote is in the log
	// awaiting: quiet and owed no answer from the terminal, the verdict.
	awaiting bool
	// rendered (when quiet): closed once the screen, which was behind,
	// has rendered more.
	rendered <-chan struct{}
}

// lookForInput probes the program and, when it is blocked and quiet,
// decides whether it may still be owed an answer, looking at the screen
// before the probe and after it (answersOwed).
func (s *Session) lookForInput(now time.Time) inputLook {
	before := s.lookAtAnswers()
	var l inputLook
	l.probe, l.blocked = s.awaiting(now)
	if !l.blocked || !s.proc.Quiet() {
		return l
	}
	owed, rendered := s.answersOwed(before)
	l.quiet, l.awaiting, l.rendered = true, !owed, rendered
	return l
}

// awaitingAnswered is lookForInput's verdict with the probe.
func (s *Session) awaitingAnswered(now time.Time) (inputwait.Probe, bool) {
	l := s.lookForInput(now)
	return l.probe, l.awaiting
}

// TUI reports whether the program shows a full-screen interface (the
// alternate screen is active): read_screen shows it better than the
// output stream.
func (s *Session) TUI() bool {
	return s.scr != nil && s.scr.scr.AltScreen()
}

// appCursorKeys reports whether the program wants application cursor keys,
// after rendering the output it has written so far (the mode switch is in
// it, usually just before the program waits for a key).
func (s *Session) appCursorKeys() bool {
	if s.scr == nil {
		return false
	}
	s.scr.syncTo(context.Background(), s.log.Stats().End, time.Now().Add(keysSyncWait))
	return s.scr.scr.AppCursorKeys()
}
