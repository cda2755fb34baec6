package session

// Waiting for the right moment.
//
// A wait returns the moment one of these holds: the until regex matched the
// new output; the program waits for input (decided from the kernel by
// inputwait, never from the text; unless IgnoreInput); the process exited
// and its last output was collected; output settled for settle_ms; the
// deadline passed. A wait that follows input counts only output after it. It sleeps on
// log.Changed(), done, ctx and one timer; the only periodic work is asking
// the kernel about input, which is debounced while output streams and backs
// off exponentially while the program is busy and silent.

import (
	"bytes"
	"context"
	"regexp"
	"time"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/record"
)

// Reason says why a wait returned.
type Reason string

// Reasons.
const (
	ReasonMatched   Reason = "matched"
	ReasonAwaiting  Reason = "awaiting_input"
	ReasonExited    Reason = "exited"
	ReasonSettled   Reason = "settled"
	ReasonTimeout   Reason = "timeout"
	ReasonNoWait    Reason = "no_wait"
	ReasonCancelled Reason = "cancelled"
	ReasonListening Reason = "listening"
)

// MaxWait caps every wait: MCP clients cut calls at about 60 s.
const MaxWait = 60 * time.Second

const (
	// minProbe is how long output must pause before the kernel is asked;
	// while output streams faster than this nobody can be waiting for input.
	minProbe = 100 * time.Microsecond
	// napMax: a pause shorter than this before the next probe is slept
	// with nap, not a runtime timer (see nap). Output arriving meanwhile is
	// seen when it ends; any wait it could end is at most this late.
	napMax = time.Millisecond
	// napStreak: after this many looks in a row found new output, pauses
	// wait on the log again (output streams; napping would poll it).
	napStreak = 8
	// streamProbe is the pause a stream (napStreak looks in a row with new
	// output) needs before a probe.
	streamProbe = 2 * time.Millisecond
	// quickLooks: in a wait after input, this many looks in a row that
	// find new output probe at once (a probe costs tens of microseconds).
	quickLooks = 3
	// maxProbe bounds the back-off while a program is busy and silent.
	maxProbe = 50 * time.Millisecond
	// gateGrace: after input is sent, a blocked reader whose scheduling
	// counters did not move has not seen the input yet; past this grace it
	// evidently did not need to wake (a partial line to a canonical reader).
	gateGrace = 50 * time.Millisecond
)

// WaitOptions say what to wait for; the zero value does not wait.
type WaitOptions struct {
	Timeout time.Duration
	Until   *regexp.Regexp
	Settle  time.Duration
	Raw     bool          // match until against raw bytes instead of clean text
	Streams outlog.Stream // pipe mode: which streams count for until
	// Input is the input this wait follows. Output from before it is
	// returned but ends nothing: settle counts from the first output after
	// it, and until matches only what came after it, its echo left out.
	// Awaiting input is judged after the program saw it (the input gate).
	Input *InputMark
	// IgnoreInput keeps waiting while the program waits for input.
	IgnoreInput bool
	// SettleFromStart lets a program just started settle before any
	// output: once nothing in it ran for Settle, it settles like one that
	// printed and went quiet.
	SettleFromStart bool
	// Listen, when set, ends the wait once the program listens (listen.go).
	Listen *ListenWait
}

// WaitResult tells why a wait ended and what the program was doing.
type WaitResult struct {
	Reason  Reason
	Match   string
	State   record.State // running, awaiting_input, awaiting_password, exited
	Detail  string       // how the state was decided
	Elapsed time.Duration
	// Listening: with ReasonListening the sockets that ended the wait; after
	// any other end of a listen wait, every socket listening then.
	Listening []ports.Socket
}

// inputGate remembers the program's scheduling fingerprint from just before
// agentty wrote input, so the stale "blocked on input" of that moment is not
// mistaken for the program asking again.
//
// Once the program has run and blocks on input again, the verdict must hold
// with an unchanged fingerprint for gateConfirm: the kernel hands written
// bytes to the terminal's reader asynchronously (the PTY flip buffer is
// pushed by a kernel worker, possibly in pieces), so a reader can block for
// a moment between pieces of the same input. If more of it arrives, the
// reader runs and the fingerprint moves.
//
// On a local terminal (InputWaits.Delivered) the readers probed right after
// the write returned are kept: once one of them has run since and waits on
// the input again in a call that takes in pending input first, the program
// has seen all of it and the verdict needs no hold.
type inputGate struct {
	active     bool
	fp         uint64
	at         time.Time
	after      inputwait.Readers // readers right after the write; zero if unknown
	confirming bool              // the program ran since the write and blocks again
	confirmFP  uint64            // fingerprint when that was first seen
	confirmAt  time.Time         // when that was first seen
	// flushedAt: when the terminal had taken in all of the input
	// (inputFlusher, after the write returned); zero if not known.
	flushedAt time.Time
}

// gateConfirm is how long a blocked-on-input verdict after input must hold
// with the program not running at all.
const gateConfirm = 500 * time.Microsecond

// awaiting probes the kernel and applies the input gate; now is taken
// before the probe.
func (s *Session) awaiting(now time.Time) (inputwait.Probe, bool) {
	p, err := s.proc.Inspect()
	if err != nil || p.State == inputwait.Running {
		return p, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gate.active && flushedBefore(s.gate, now, p) {
		s.gate = inputGate{}
		return p, true
	}
	if s.gate.active {
		grace := max(gateGrace, s.proc.InputWaits().Grace)
		if p.Fingerprint == s.gate.fp && now.Sub(s.gate.at) < grace {
			return p, false
		}
		if a := s.gate.after; a.IDs != 0 && a.Flushing && p.Readers.Flushing &&
			p.Readers.IDs == a.IDs && p.Readers.Runs != a.Runs {
			s.gate = inputGate{}
			return p, true
		}
		if !s.gate.confirming || p.Fingerprint != s.gate.confirmFP {
			s.gate.confirming, s.gate.confirmFP, s.gate.confirmAt = true, p.Fingerprint, now
			return p, false
		}
		if now.Sub(s.gate.confirmAt) < gateConfirm {
			return p, false
		}
		s.gate = inputGate{}
	}
	return p, true
}

// Wait blocks until the condition in o, starting from cursor from (the
// reader's position, so "new output" means output the caller has not read).
func (s *Session) Wait(ctx context.Context, from int64, o WaitOptions) WaitResult {
	start := time.Now()
	res := s.wait(ctx, from, o, start)
	res.Elapsed = time.Since(start)
	if o.Listen != nil && res.Reason != ReasonListening {
		res.Listening = s.Listening()
	}
	if res.State == "" {
		st, p := s.State()
		res.State, res.Detail = st, p.Detail
	}
	return res
}

func (s *Session) wait(ctx context.Context, from int64, o WaitOptions, start time.Time) WaitResult {
	if o.Streams == 0 {
		o.Streams = outlog.Both
	}
	o.Timeout = min(o.Timeout, MaxWait)
	base := from // output from here on may end the wait
	if o.Input != nil {
		base = max(from, o.Input.At)
	}
	var m *matcher
	if o.Until != nil {
		m = &matcher{re: o.Until, raw: o.Raw, mask: o.Streams, off: base}
		if o.Input != nil && base == o.Input.At && !o.Raw {
			m.echo, m.echoing = s.echoAt(base)
		}
		if base > from && o.Streams == outlog.Both && !s.lineStartsAt(base) {
			// The reply starts before the input mark, which is inside a
			// line (after a prompt): ^ must not match there, or until
			// would take the middle of a returned line for its start.
			m.text, m.lead = []byte{midLine}, 1
		}
	}
	st := s.log.Stats()
	if m != nil {
		if txt, ok := m.feed(s, st.Closed); ok {
			return WaitResult{Reason: ReasonMatched, Match: txt}
		}
	}
	if o.Timeout <= 0 {
		return WaitResult{Reason: ReasonNoWait}
	}
	deadline := start.Add(o.Timeout)
	lastEnd := st.End
	sawNew := st.End > base
	lastOut := start
	if sawNew && st.LastWrite > 0 {
		lastOut = time.Unix(0, st.LastWrite)
	}
	// Before its first output a just-started program settles on being idle:
	// nothing in it ran (its scheduling fingerprint held) for Settle. A
	// program still starting up or computing keeps the wait going.
	idle := o.SettleFromStart && !sawNew
	var idleFP uint64
	idleSince := start
	probeAt, probeDelay := start, minProbe
	if o.Input != nil && !sawNew {
		// Right after the write the program cannot have taken the input in
		// yet: a probe now would only find the stale block of before it.
		// Output after the input says it has (a quick program answered
		// while the write and its flush returned): look at once.
		probeAt = start.Add(minProbe)
	}
	var lw *listenWatch
	if o.Listen != nil {
		lw = newListenWatch(*o.Listen, start, st.End)
	}
	timer := time.NewTimer(o.Timeout)
	defer timer.Stop()
	streak := 0 // consecutive looks that found new output
	lastProbe := start
	// tail: the last probe found the program waiting for input while Quiet
	// took output still in the terminal; that output is its last before
	// the wait, so the next look probes at once instead of pausing after
	// the output. Only one look in a row: output that keeps coming while
	// the program waits (a background writer) is paced as usual.
	tail, tailed := false, false
	// rendered: the screen was behind when the program was found waiting;
	// closed once it rendered more (nil: nothing to wait for).
	var rendered <-chan struct{}
	for {
		changed := s.log.Changed()
		st = s.log.Stats()
		now := time.Now()
		if st.End != lastEnd {
			lastEnd, sawNew, lastOut = st.End, true, now
			streak++
			if streak < napStreak {
				probeDelay = minProbe
			} else {
				// A stream's short pauses are not worth a probe: it
				// would find the program running.
				probeDelay = max(probeDelay, streamProbe)
			}
			probeAt = now.Add(probeDelay)
			if o.Input != nil && streak < napStreak {
				// After input, the pause paces probes rather than waits
				// out the output: a program that writes its reply a byte
				// at a time (python's REPL writes each character of the
				// echo and of ">>> " on its own) would otherwise have its
				// verdict a full pause after its last byte. Probing while
				// it still writes only finds it running.
				probeAt = later(now, lastProbe.Add(minProbe))
			}
			if streak <= quickLooks && o.Input != nil {
				// The first output after a quiet look, in a wait after
				// input: a reply (the echo, a REPL's value, its prompt,
				// often in separate pieces) is usually all there is, so
				// look at once; had the pause come first, it would have
				// added itself to every round trip. A stream's later
				// chunks are paced as before.
				probeAt = now
			}
		} else {
			streak = 0
		}
		if tail {
			probeAt, tail, tailed = now, false, true
		}
		exited := isDone(s.done)
		if m != nil {
			if txt, ok := m.feed(s, exited && st.Closed); ok {
				return WaitResult{Reason: ReasonMatched, Match: txt}
			}
		}
		if exited {
			return WaitResult{Reason: ReasonExited, State: s.endState()}
		}
		next := deadline
		if lw != nil {
			ss, ok, at := lw.poll(s, now, st.End)
			if ok {
				return WaitResult{Reason: ReasonListening, Listening: ss}
			}
			next = earliest(next, at)
		}
		if probing := !o.IgnoreInput || (idle && !sawNew); probing {
			if !now.Before(probeAt) {
				// Blocked on input first, then quiet: the block happened after
				// the program's last write, so the quiet check covers that write.
				var l inputLook
				if o.IgnoreInput {
					l.probe, l.blocked = s.awaiting(now) // for the idle fingerprint only
				} else {
					l = s.lookForInput(now)
				}
				lastProbe = now
				p, ok, quiet := l.probe, l.blocked, l.quiet
				if p.Fingerprint != idleFP {
					idleFP, idleSince = p.Fingerprint, now
				}
				if quiet {
					rendered = l.rendered
				}
				if l.awaiting {
					// Quiet may have appended the output that matches.
					if m != nil {
						if txt, ok := m.feed(s, false); ok {
							return WaitResult{Reason: ReasonMatched, Match: txt}
						}
					}
					if lw != nil { // it listened before it waited: the wait was for that
						if ss := lw.final(s); len(ss) > 0 {
							return WaitResult{Reason: ReasonListening, Listening: ss}
						}
					}
					return WaitResult{Reason: ReasonAwaiting, State: stateOf(p.State), Detail: p.Detail}
				}
				probeAt = now.Add(probeDelay)
				probeDelay = min(probeDelay*2, maxProbe)
				if rendered != nil {
					// The screen is behind the output (it may owe the
					// program an answer): look again once it rendered.
					probeAt = now.Add(maxProbe)
				}
				if ok && !o.IgnoreInput && !quiet && !tailed {
					tail = true
					continue
				}
				tailed = false
			}
			next = earliest(next, probeAt)
		}
		if o.Settle > 0 && (sawNew || idle) {
			settleAt := lastOut.Add(o.Settle)
			if !sawNew {
				settleAt = idleSince.Add(o.Settle)
			}
			if !now.Before(settleAt) {
				return WaitResult{Reason: ReasonSettled}
			}
			next = earliest(next, settleAt)
		}
		if !now.Before(deadline) {
			return WaitResult{Reason: ReasonTimeout}
		}
		next = earliest(next, deadline)
		// Output arriving at every look is a stream: the next chunk wakes
		// the loop, and the runtime timer's slack no longer matters.
		if d := next.Sub(now); d < napMax && next.Equal(probeAt) && streak < napStreak && rendered == nil {
			if !s.nap(d) {
				continue
			}
			// Output is ready: the pump appends it and changed fires.
			now = time.Now()
		}
		if streak >= napStreak {
			// Output streams: look again after streamProbe instead of at
			// every chunk the pump appends (thousands a second at a PTY's
			// pace, each a wake-up of this goroutine and often of a
			// thread). A match, a pause or the end of the stream is seen
			// at most streamProbe late; the exit still wakes at once.
			changed = nil
			next = earliest(next, now.Add(streamProbe))
		}
		timer.Reset(next.Sub(now))
		select {
		case <-rendered:
			rendered, probeAt = nil, time.Now()
		case <-changed:
		case <-s.done:
		case <-timer.C:
		case <-ctx.Done():
			return WaitResult{Reason: ReasonCancelled}
		}
	}
}

// outputNapper is a process whose output can end a short sleep early
// (backend's local PTY and pipes): Nap sleeps under a millisecond or until
// output is ready to read, and says which.
type outputNapper interface {
	Nap(d time.Duration) (woke bool)
}

// nap sleeps for d (under napMax) with the kernel's precision, ended early
// by output where the process can tell; woke says so.
func (s *Session) nap(d time.Duration) (woke bool) {
	if n, ok := s.proc.(outputNapper); ok {
		return n.Nap(d)
	}
	nap(d)
	return false
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// matcher runs the until regex over new output incrementally: each feed
// cleans only bytes it has not seen, and searches the new text plus an
// overlap so matches that span two chunks are found.
type matcher struct {
	re      *regexp.Regexp
	raw     bool
	mask    outlog.Stream
	off     int64  // next raw offset to clean
	echo    echo   // expected echo of the input on the text's first line, dropped before matching
	echoing bool   // echo is still to be found
	lead    int    // 1 while text starts with midLine
	text    []byte // clean text window
	scanned int    // text before scanned-overlap was already searched
}

const (
	// midLine stands for the part of a line before the matcher's text,
	// so ^ does not match at its start; a match never reports it.
	midLine      = 0
	matchOverlap = 4 << 10 // a match may start this far before new text
	matchWindow  = 1 << 20 // text kept for matching
	feedChunk    = 4 << 20 // raw bytes cleaned per feed
)

func (m *matcher) feed(s *Session, final bool) (string, bool) {
	sl := s.log.Read(m.off, -1, feedChunk, m.mask)
	if len(sl.Data) == 0 && sl.From == m.off {
		return "", false
	}
	t, n := clean(sl.Data, final && sl.EOF, m.raw)
	m.off = s.absAt(sl.From, m.mask, n)
	m.text = append(m.text, t...)
	if m.echoing {
		i, found, pending := echoOnLine(string(m.text[m.lead:]), m.echo)
		switch {
		case found:
			rest := cutEcho(string(m.text[m.lead:]), i, len(m.echo.text)-1, func() bool { return false })
			if i == 0 {
				m.lead = 0 // the echo was the rest of its line: a new one starts
			}
			m.text = append(m.text[:m.lead], rest...)
			m.echoing = false
		case pending && !final:
			return "", false // the echo is still arriving
		case final || bytes.IndexByte(m.text, '\n') >= 0:
			m.echoing = false // its line ended without it
		}
	}
	from := max(0, m.scanned-matchOverlap)
	if loc := m.re.FindIndex(m.text[from:]); loc != nil {
		return string(m.text[max(from+loc[0], m.lead) : from+loc[1]]), true
	}
	m.scanned = len(m.text)
	if len(m.text) > matchWindow {
		drop := len(m.text) - matchOverlap
		m.text = append(m.text[:0], m.text[drop:]...)
		m.scanned -= drop
		m.lead = 0
	}
	return "", false
}
