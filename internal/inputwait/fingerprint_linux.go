//go:build linux && (amd64 || arm64)

package inputwait

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

// fingerprint folds the order-independent per-thread sum with the group
// identity and size, so membership changes show even when counters do not.
func fingerprint(sum uint64, pgid, members int) uint64 {
	return mix3(sum, uint64(pgid), uint64(members))
}

// mix3 is FNV-1a over three little-endian 64-bit words.
func mix3(a, b, c uint64) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for _, w := range [3]uint64{a, b, c} {
		for i := 0; i < 8; i++ {
			h ^= w & 0xff
			h *= prime
			w >>= 8
		}
	}
	return h
}
