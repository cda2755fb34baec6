package inputwait

import (
	"runtime"
	"strconv"
	"sync"
	"time"
)

// The inferred verdict decides from facts every supported kernel shows:
// the terminal's foreground group, its members' CPU and scheduling
// counters, their threads' run states, the terminal's queues and modes.
// No kernel but Linux says which call a waiting thread is in, so "waits
// for input" is inferred from "waits for something, spent no CPU for a
// while, and the terminal holds no unread input".
//
// Each probe takes one sample (the session re-probes on its own backoff);
// the verdict needs the counters unchanged across samples spanning the
// quiet window.

// Quiet windows. Raw mode (ICANON off: readline, a REPL, an editor) is
// strong evidence that a program owns the keyboard, so it needs little
// quiet. A shell restores canonical mode before it runs a job, so a
// sleeping foreground job is judged with the long window: sleeps shorter
// than it never produce a verdict. Tuned with `agentty bench -verdicts`.
var (
	inferQuiet      = 30 * time.Millisecond
	inferCanonQuiet = 250 * time.Millisecond
)

// runState is a thread's scheduling state as every kernel names it.
type runState uint8

const (
	runWaiting         runState = iota // interruptible wait (S; XNU WAITING)
	runRunning                         // on a CPU or runnable (R)
	runUninterruptible                 // D; XNU UNINTERRUPTIBLE
	runStopped                         // T, t; XNU STOPPED, HALTED
)

func (r runState) String() string {
	switch r {
	case runRunning:
		return "is running"
	case runUninterruptible:
		return "is in uninterruptible sleep"
	case runStopped:
		return "is stopped"
	}
	return "waits"
}

// sampleMember is one live process of the inspected group.
type sampleMember struct {
	member
	start uint64 // start time: with pid it names one process across pid reuse
	// Run counters, summed over the process's threads: CPU time (ns), how
	// often it entered the kernel or was scheduled, context switches. Any
	// of them moving means it ran.
	cpuNS, runs, csw uint64
	// state is the process's worst thread state (running beats
	// uninterruptible beats stopped beats waiting), and tid the thread in it.
	state runState
	tid   int
}

// sample is one observation of the inspected group. The sampler fills
// pgid and members first, with whatever thread states it has cheaply (at
// least a running or stopped process); every thread's state, the queues
// and the modes only once the counters have been quiet long enough (deep).
type sample struct {
	at      time.Time
	pty     bool
	pgid    int
	members []sampleMember
	// Deep facts.
	threads   int // threads of all members
	inq, outq int // bytes in the terminal's input and output queues
	canonical bool
	echo      bool
}

// inferState is what an Inspector keeps between inferred probes.
type inferState struct {
	mu         sync.Mutex
	have       bool
	last       []sampleMember // the previous sample's members
	lastPgid   int
	quietSince time.Time
	scratch    sampleScratch // the sampler's reusable buffers
}

// worse reports whether a is worse evidence against waiting than b.
func worse(a, b runState) bool {
	rank := [...]int{runWaiting: 0, runStopped: 1, runUninterruptible: 2, runRunning: 3}
	return rank[a] > rank[b]
}

// sameMembers reports whether two samples saw the same processes with the
// same counters: nothing in the group ran in between.
func sameMembers(a, b []sampleMember) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.pid != y.pid || x.start != y.start || x.cpuNS != y.cpuNS || x.runs != y.runs || x.csw != y.csw {
			return false
		}
	}
	return true
}

// inferFingerprint moves whenever any member ran or the membership changed,
// so the session's input gate works as with the exact verdict.
func (s *sample) fingerprint() uint64 {
	var sum uint64
	for i := range s.members {
		m := &s.members[i]
		sum += mix3(mix3(uint64(m.pid), m.start, m.cpuNS), m.runs, m.csw)
	}
	return fingerprint(sum, s.pgid, len(s.members))
}

// leader is the member that names the group in a Detail: the group
// leader if it is a member, else the first.
func (s *sample) leader() *sampleMember {
	for i := range s.members {
		if s.members[i].pid == s.pgid {
			return &s.members[i]
		}
	}
	return &s.members[0]
}

func (m *sampleMember) name() string {
	s := "pid " + strconv.Itoa(m.pid) + " (" + m.comm.String() + ")"
	if m.tid != 0 && m.tid != m.pid {
		s += " thread " + strconv.Itoa(m.tid)
	}
	return s
}

func ms(d time.Duration) string {
	return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
}

// observe records s as the latest sample and decides what the first pass
// can: Running (done is true), or how long the group has been quiet, for
// judge to finish with the deep facts.
func (st *inferState) observe(s *sample) (p Probe, quiet time.Duration, done bool) {
	changed := !st.have || st.lastPgid != s.pgid || !sameMembers(st.last, s.members)
	w := s.worst()
	if changed || (w != nil && w.state == runRunning) {
		st.quietSince = s.at
	}
	// Members must be compared in a stable order: samplers list them in
	// walk or pid order, which only changes when membership does.
	st.last = append(st.last[:0], s.members...)
	st.lastPgid, st.have = s.pgid, true
	quiet = s.at.Sub(st.quietSince)

	p = Probe{State: Running, Fingerprint: s.fingerprint()}
	switch {
	case s.pgid <= 0:
		p.Detail = "inferred: the terminal has no foreground process group"
	case len(s.members) == 0:
		p.Detail = "inferred: no live process in process group " + strconv.Itoa(s.pgid)
	default:
		if w != nil {
			p.Detail = "inferred: " + w.name() + " " + w.state.String()
			return p, quiet, true
		}
		if changed {
			p.Detail = "inferred: " + s.leader().name() + " ran since the last look"
			return p, quiet, true
		}
		if quiet < inferQuiet {
			p.Detail = "inferred: " + s.leader().name() + " quiet for " + ms(quiet) + ", needs " + ms(inferQuiet)
			return p, quiet, true
		}
		return p, quiet, false
	}
	return p, quiet, true
}

// worst returns the member in the worst state, or nil if all wait.
func (s *sample) worst() *sampleMember {
	var w *sampleMember
	for i := range s.members {
		m := &s.members[i]
		if m.state != runWaiting && (w == nil || worse(m.state, w.state)) {
			w = m
		}
	}
	return w
}

// judge finishes a probe whose group was quiet for quiet, with s's deep
// facts filled in (every member's thread states, queues, modes).
func judge(s *sample, quiet time.Duration, fp uint64) Probe {
	p := Probe{State: Running, Fingerprint: fp}
	if m := s.worst(); m != nil {
		p.Detail = "inferred: " + m.name() + " " + m.state.String()
		return p
	}
	if s.inq > 0 {
		p.Detail = "inferred: " + strconv.Itoa(s.inq) + " bytes typed, not read"
		return p
	}
	if s.outq > 0 {
		p.Detail = "inferred: blocked writing output (" + strconv.Itoa(s.outq) + " bytes not taken)"
		return p
	}
	l := s.leader()
	if s.canonical && quiet < inferCanonQuiet {
		p.Detail = "inferred: " + l.name() + " quiet for " + ms(quiet) + ", canonical mode needs " + ms(inferCanonQuiet)
		return p
	}
	p.State = AwaitingInput
	p.Detail = "inferred: pgrp " + strconv.Itoa(s.pgid) + " (" + l.comm.String() + ") " +
		strconv.Itoa(s.threads) + "/" + strconv.Itoa(s.threads) + " threads waiting, no CPU for " +
		ms(quiet) + ", tty input queue empty"
	if s.canonical && !s.echo {
		// A line read with echo off; line editors turn ICANON off too.
		p.State = AwaitingPassword
		p.Detail += "; echo off"
	}
	return p
}

// infer is the inferred verdict through x's history; without one (the
// package-level Inspect, or a probe racing another on the same Inspector)
// a single sample cannot show quiet, so the answer is Running.
func (x *Inspector) infer(t Target) (Probe, error) {
	switch {
	case !inferBuilt:
		return noVerdict("no inferred verdict on " + runtime.GOOS + "/" + runtime.GOARCH)
	case t.PTY == nil:
		return noVerdict("the inferred verdict needs a terminal")
	case x == nil:
		return noVerdict("the inferred verdict needs an Inspector")
	}
	st := &x.inf
	if !st.mu.TryLock() {
		var fresh inferState
		return fresh.probe(t)
	}
	defer st.mu.Unlock()
	return st.probe(t)
}

// probe takes one sample of t and decides.
func (st *inferState) probe(t Target) (Probe, error) {
	s, err := st.scratch.take(t)
	if err != nil {
		return Probe{State: Running, Detail: "inferred: cannot sample the group"}, err
	}
	if s == nil {
		return Probe{State: Running, Detail: "root process " + strconv.Itoa(t.Root) + " has exited"}, nil
	}
	p, quiet, done := st.observe(s)
	if done {
		return p, nil
	}
	if err := st.scratch.deep(t, s); err != nil {
		return Probe{State: Running, Fingerprint: p.Fingerprint, Detail: "inferred: cannot sample the group"}, err
	}
	return judge(s, quiet, p.Fingerprint), nil
}
