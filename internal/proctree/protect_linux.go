//go:build linux

package proctree

import (
	"os"
	"syscall"
)

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
