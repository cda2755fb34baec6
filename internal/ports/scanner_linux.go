//go:build linux

package ports

import (
	"os"
	"slices"
	"strconv"
	"sync"
)

// Scanner scans one session again and again (a wait on its ports). While
// the listening sockets of agentty's network namespace and the session's
// processes are the ones of its last full scan, that scan's answer stands:
// a scan then costs one sock_diag dump of the namespace's listening sockets
// instead of reading every descriptor of the session (a server holding
// thousands of connections has thousands). A session that held at most
// directFDs descriptors at its last scan has them read instead: cheaper
// than the dump, and with no socket among them, no dump at all (a list of
// a thousand sessions asks each). The zero value is ready; it is safe for
// concurrent use.
type Scanner struct {
	mu     sync.Mutex
	valid  bool     // guarded by mu; last may be reused
	inodes []uint64 // guarded by mu; the namespace's listening sockets then
	pids   []int    // guarded by mu; the owners then
	last   []Socket // guarded by mu
	fds    int      // guarded by mu; the owners' descriptors at the last full scan
}

// directFDs is the most descriptors a session may hold for its scans to
// read them rather than validate the last answer by a sock_diag dump.
const directFDs = 64

// Scan is Scan(owners), reusing the last answer while nothing it depends on
// changed.
func (sc *Scanner) Scan(owners []Owner) ([]Socket, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.fds <= directFDs {
		res, fds, err := scan(owners)
		sc.valid, sc.fds = false, fds
		return res, err
	}
	all, err := diagListening(func(uint64) (Owner, bool) { return Owner{}, true })
	if err != nil {
		sc.valid = false
		return Scan(owners)
	}
	inodes := make([]uint64, len(all))
	for i, s := range all {
		inodes[i] = s.Inode
	}
	slices.Sort(inodes)
	pids := make([]int, len(owners))
	for i, o := range owners {
		pids[i] = o.PID
	}
	slices.Sort(pids)
	if sc.valid && slices.Equal(inodes, sc.inodes) && slices.Equal(pids, sc.pids) {
		return slices.Clone(sc.last), nil
	}
	res, fds, err := scan(owners)
	if err != nil {
		sc.valid = false
		return nil, err
	}
	sc.valid, sc.inodes, sc.pids, sc.last, sc.fds = inOwnNetNS(owners), inodes, pids, slices.Clone(res), fds
	return res, nil
}

// inOwnNetNS reports whether every owner shares agentty's network
// namespace, whose sockets alone a sock_diag dump sees.
func inOwnNetNS(owners []Owner) bool {
	for _, o := range owners {
		if ns, err := os.Readlink("/proc/" + strconv.Itoa(o.PID) + "/ns/net"); err != nil || ns != ownNetNS {
			return false
		}
	}
	return true
}
