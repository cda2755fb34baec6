//go:build linux

package proctree

import (
	"os"
	"syscall"
)

// protected lists pids and process groups that must never be signalled:
// 0, -1 semantics and init, agentty itself, its ancestors and their groups.
// Signalling any of them would take down agentty or the user's shell rather
// than one session.
type protected struct {
	pids, pgids map[int]bool
}

// maxAncestors bounds the ancestor walk against a corrupted or cyclic view.
const maxAncestors = 64

func protectSelf() protected {
	p := protected{
		pids:  map[int]bool{0: true, 1: true},
		pgids: map[int]bool{0: true, 1: true},
	}
	self := os.Getpid()
	p.pids[self] = true
	p.pgids[self] = true
	p.pgids[syscall.Getpgrp()] = true
	pid := self
	for range maxAncestors {
		st, err := readStat(pid)
		if err != nil {
			break
		}
		p.pids[pid] = true
		p.pgids[st.PGID] = true
		if st.PPID <= 1 {
			break
		}
		pid = st.PPID
	}
	return p
}

// groupOK reports whether signalling process group pgid is allowed.
func (p protected) groupOK(pgid int) bool {
	return pgid > 1 && !p.pgids[pgid] && !p.pids[pgid]
}
