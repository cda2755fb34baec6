package inputwait

import (
	"strconv"
	"time"
)

// procVerdict summarises one member process.
type procVerdict uint8

const (
	pvGone     procVerdict = iota // all threads gone, or not judged
	pvReading                     // a thread reads the input; nothing runs
	pvPassive                     // waits for a child, a pipe, or is stopped
	pvSleeping                    // sleeps for a time or until a signal
	pvBusy                        // anything else: the program is not idle
)

// tally collects the classifications of one process's threads.
type tally struct {
	n                      int // threads of the process
	nGone, nStopped, nWait int
	first                  [thBusy + 1]threadResult
	seen                   [thBusy + 1]bool
}

func (t *tally) add(r threadResult) {
	if !t.seen[r.class] {
		t.seen[r.class], t.first[r.class] = true, r
	}
	switch r.class {
	case thGone:
		t.nGone++
	case thStopped:
		t.nStopped++
	case thWaitChild, thPipeRead:
		t.nWait++
	}
}

// verdict decides what the process is doing; the result is the thread
// that explains it.
func (t *tally) verdict() (procVerdict, threadResult) {
	switch {
	case t.nGone == t.n:
		return pvGone, threadResult{}
	case t.seen[thBusy]:
		return pvBusy, t.first[thBusy]
	case t.seen[thReading]:
		// Other threads may sleep in anything (node's helper loops, a Go
		// runtime's sysmon): none of them is on a CPU.
		return pvReading, t.first[thReading]
	case t.nWait+t.nStopped > 0:
		// The same tolerance for a process whose thread waits for a child
		// or a pipe: that thread says what the process is waiting on.
		for _, c := range [...]threadClass{thWaitChild, thPipeRead} {
			if t.seen[c] {
				return pvPassive, t.first[c]
			}
		}
		return pvPassive, t.first[thStopped]
	case t.seen[thBlocked]:
		return pvBusy, t.first[thBlocked]
	case t.seen[thSleep]:
		// Only sleeps and futex waits: a timer or a signal wakes it, not
		// work in progress (a script's `sleep 60 &`).
		return pvSleeping, t.first[thSleep]
	default: // only futex waits: waiting on something we cannot see
		return pvBusy, t.first[thFutex]
	}
}

// group collects the verdicts of the inspected group's members in walk
// order; after a busy member the answer is Running. A sleeping member
// does not keep another member's read of the input from being the answer:
// without job control a script's background job shares its group, and a
// shell waiting for a sleeping foreground child reads nothing.
type group struct {
	live                           int
	busy, reading, idleNote, sleep threadResult
	busyM, readM, idleM, sleepM    *member
}

func (g *group) add(m *member, pv procVerdict, note threadResult) {
	switch pv {
	case pvGone:
		return
	case pvBusy:
		g.busy, g.busyM = note, m
	case pvReading:
		if g.readM == nil {
			g.reading, g.readM = note, m
		}
	case pvPassive:
		if g.idleM == nil {
			g.idleNote, g.idleM = note, m
		}
	case pvSleeping:
		if g.sleepM == nil {
			g.sleep, g.sleepM = note, m
		}
	}
	g.live++
}

// probe decides for the group pgid; decode is false when nothing can be
// the input. An AwaitingInput result still needs the checks that depend on
// the input's kind (pending bytes, echo off).
func (g *group) probe(decode bool, pgid int, fp uint64) Probe {
	probe := Probe{State: Running, Fingerprint: fp}
	switch {
	case !decode:
		probe.Detail = "stdin is closed"
	case g.busyM != nil:
		probe.Detail = describe(g.busyM, &g.busy)
	case pgid <= 0:
		probe.Detail = "the terminal has no foreground process group"
	case g.live == 0:
		probe.Detail = "no live process in process group " + strconv.Itoa(pgid)
	case g.readM == nil && g.sleepM != nil:
		// A sleeper vetoes nothing, but with no reader it is what the
		// program waits for: the program goes on by itself.
		probe.Detail = describe(g.sleepM, &g.sleep)
	case g.readM == nil:
		probe.Detail = "nothing in process group " + strconv.Itoa(pgid) + " reads the input"
		if g.idleM != nil {
			probe.Detail += "; " + describe(g.idleM, &g.idleNote)
		}
	default:
		probe.State, probe.Detail = AwaitingInput, describe(g.readM, &g.reading)
	}
	return probe
}

// describe renders one thread's classification for Probe.Detail.
func describe(m *member, r *threadResult) string {
	s := "pid " + strconv.Itoa(m.pid) + " (" + m.comm.String() + ")"
	if r.tid != m.pid && r.tid != 0 {
		s += " thread " + strconv.Itoa(r.tid)
	}
	switch r.class {
	case thReading:
		s += " in " + sysName(r) + " on fd " + strconv.Itoa(r.fd) + " (" + r.fdKind + ")"
		if r.timeout >= 0 {
			// The program goes on by itself when this runs out: waiting
			// past awaiting_input (return_on) sees what it does next.
			s += " with a " + r.timeout.Round(time.Millisecond).String() + " timeout"
		}
		return s
	case thWaitChild:
		return s + " waits for a child in " + sysName(r)
	case thPipeRead:
		return s + " reads a pipe in " + sysName(r)
	case thStopped:
		return s + " is stopped"
	case thBlocked, thFutex, thSleep:
		return s + " is blocked in " + sysName(r) + ", not on the input"
	case thBusy:
		switch {
		case r.why != "":
			return s + " " + r.why
		case r.state == 'R':
			return s + " is running"
		case r.state == 'D':
			return s + " is in uninterruptible sleep"
		default:
			return s + " is in state " + string(rune(r.state))
		}
	}
	return s
}

func sysName(r *threadResult) string {
	if r.name != "" {
		return r.name
	}
	return "syscall " + strconv.Itoa(r.nr)
}
