//go:build linux && (amd64 || arm64)

package inputwait

import "golang.org/x/sys/unix"

// judgeMember adds m's threads to the fingerprint sum (and the ones found
// reading the input to readers) and, if judge is set, decides what the
// process is doing; note is the thread that explains the verdict.
func (in *inspector) judgeMember(m *localMember, judge bool, sum *uint64, readers *readerSum) (procVerdict, threadResult) {
	p := procCtx{pid: m.pid, ttyNr: m.st.ttyNr, memFd: -1}
	defer func() {
		if p.memFd >= 0 {
			unix.Close(p.memFd)
		}
	}()
	in.fds = in.fds[:0]
	tids := in.tids[m.start:m.end]
	t := tally{n: len(tids)}
	for _, tid := range tids {
		// The run counter is read before the state: if the thread wakes in
		// between, the fingerprint already shows it, so a stale wait is
		// never paired with a fresh fingerprint.
		runs := in.threadRuns(m.pid, tid)
		*sum += runs
		if !judge || t.seen[thBusy] {
			continue
		}
		// Once a thread reads the input, its siblings only matter if they
		// are on a CPU, so their syscalls need not be decoded.
		r := in.classifyThread(&p, tid, !t.seen[thReading])
		if r.class == thReading {
			readers.add(r, runs)
		}
		t.add(r)
	}
	if !judge {
		return pvGone, threadResult{}
	}
	return t.verdict()
}

// threadRuns hashes how much thread tid has run so far. schedstat's
// on-CPU nanoseconds and schedule count change every time the thread gets a
// CPU, which is exactly "it ran since the last probe"; the context-switch
// counters in status are the fallback for kernels without schedstat.
func (in *inspector) threadRuns(pid, tid int) uint64 {
	b, err := in.readProc(pid, tid, leafSchedstat, 1<<12)
	if err == nil {
		if runtime, pcount, ok := parseSchedstat(b); ok && (runtime != 0 || pcount != 0) {
			return mix3(uint64(tid), runtime, pcount)
		}
	}
	b, err = in.readProc(pid, tid, leafStatus, 1<<16)
	if err != nil {
		if err != errGone && in.countErr == nil {
			// Not a thread that ended: without its counters the
			// fingerprint could stay put while the thread runs, and a
			// stale wait would pass for a new one. The probe fails.
			in.countErr = err
		}
		return mix3(uint64(tid), 0, 0)
	}
	return mix3(uint64(tid), parseCtxtSwitches(b), 1)
}
