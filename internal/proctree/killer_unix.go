//go:build linux || darwin

package proctree

import "golang.org/x/sys/unix"

// signal sends sig to every allowed process group of procs and of groups,
// then to each process and to every earlier-signalled process still alive
// (one that lost its marker and parent would otherwise be missed).
// Groups go first so a process forking right now cannot outrun us. How a
// single process is reached (a pidfd, or a pid re-checked by start time)
// is each OS's killer's: signalProc and signalRest.
func (k *killer) signal(procs []Proc, groups []int, sig unix.Signal) {
	sent := make(map[int]bool)
	kill := func(g int) {
		if !sent[g] && k.prot.groupOK(g) {
			// ESRCH: the group is already gone.
			sent[g] = unix.Kill(-g, sig) == nil
		}
	}
	for _, g := range groups {
		kill(g)
	}
	for _, p := range procs {
		kill(p.PGID)
	}
	seen := make(map[procKey]bool, len(procs))
	for _, p := range procs {
		key := procKey{p.PID, p.StartTime}
		seen[key] = true
		// The group signal may already have ended it before signalProc runs;
		// it was signalled all the same.
		if sent[p.PGID] {
			k.signalled[key] = true
		}
		k.signalProc(key, sig)
	}
	k.signalRest(seen, sig)
}
