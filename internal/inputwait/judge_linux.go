//go:build linux && (amd64 || arm64)

package inputwait

import "golang.org/x/sys/unix"

// procVerdict summarises one member process.
type procVerdict uint8

const (
	pvGone    procVerdict = iota // all threads gone, or not judged
	pvReading                    // a thread reads the input; nothing runs
	pvPassive                    // waits for a child, a pipe, or is stopped
	pvBusy                       // anything else: the program is not idle
)

// judgeMember adds m's threads to the fingerprint sum and, if judge is
// set, decides what the process is doing; note is the thread that explains
// the verdict.
func (in *inspector) judgeMember(m *member, judge bool, sum *uint64) (procVerdict, threadResult) {
	p := procCtx{pid: m.pid, ttyNr: m.st.ttyNr, memFd: -1}
	defer func() {
		if p.memFd >= 0 {
			unix.Close(p.memFd)
		}
	}()
	in.fds = in.fds[:0]
	var (
		nGone, nStopped, nWait int
		first                  [thBusy + 1]threadResult
		seen                   [thBusy + 1]bool
	)
	tids := in.tids[m.start:m.end]
	for _, tid := range tids {
		// The run counter is read before the state: if the thread wakes in
		// between, the fingerprint already shows it, so a stale wait is
		// never paired with a fresh fingerprint.
		*sum += in.threadRuns(m.pid, tid)
		if !judge || seen[thBusy] {
			continue
		}
		// Once a thread reads the input, its siblings only matter if they
		// are on a CPU, so their syscalls need not be decoded.
		r := in.classifyThread(&p, tid, !seen[thReading])
		if !seen[r.class] {
			seen[r.class], first[r.class] = true, r
		}
		switch r.class {
		case thGone:
			nGone++
		case thStopped:
			nStopped++
		case thWaitChild, thPipeRead:
			nWait++
		}
	}
	switch {
	case !judge || nGone == len(tids):
		return pvGone, threadResult{}
	case seen[thBusy]:
		return pvBusy, first[thBusy]
	case seen[thReading]:
		// Other threads may sleep in anything (node's helper loops, a Go
		// runtime's sysmon): none of them is on a CPU.
		return pvReading, first[thReading]
	case nWait+nStopped > 0:
		// The same tolerance for a process whose thread waits for a child
		// or a pipe: that thread says what the process is waiting on.
		for _, c := range [...]threadClass{thWaitChild, thPipeRead} {
			if seen[c] {
				return pvPassive, first[c]
			}
		}
		return pvPassive, first[thStopped]
	case seen[thBlocked]:
		return pvBusy, first[thBlocked]
	default: // only futex waits: waiting on something we cannot see
		return pvBusy, first[thFutex]
	}
}
