//go:build unix

package httpserver

import "syscall"

// connBudget is the number of connections that may be open at once: want,
// but never so many that sessions could not start for lack of descriptors.
// Go raises the soft RLIMIT_NOFILE to the hard one at start, so soft is
// all the process may open.
func connBudget(want int) (total int, soft uint64) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == ^uint64(0) { // RLIM_INFINITY
		return want, 0
	}
	soft = rl.Cur
	reserve := min(uint64(DefaultFDReserve), soft/2) + spareConns
	if soft <= reserve {
		return 1, soft
	}
	return int(min(uint64(want), soft-reserve)), soft
}
