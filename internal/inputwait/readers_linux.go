//go:build linux && (amd64 || arm64)

package inputwait

// readerSum accumulates Probe.Readers over the threads found reading.
type readerSum struct {
	ids, runs   uint64
	n           int
	allFlushing bool
}

func (r *readerSum) add(t threadResult, runs uint64) {
	if r.n == 0 {
		r.allFlushing = true
	}
	r.n++
	r.ids += mix3(uint64(t.tid), 0, 0)
	r.runs += runs
	kind, _ := lookupSyscall(t.nr)
	r.allFlushing = r.allFlushing && (kind == sysRead || kind == sysSelect || kind == sysPoll)
}

func (r *readerSum) of(pgid, members int) Readers {
	if r.n == 0 {
		return Readers{}
	}
	return Readers{IDs: fingerprint(r.ids, pgid, members), Runs: fingerprint(r.runs, pgid, members), Flushing: r.allFlushing}
}
