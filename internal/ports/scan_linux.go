//go:build linux

package ports

import (
	"encoding/binary"
	"os"
	"strconv"
	"strings"
)

// Scan lists the listening sockets held by owners on this machine. It reads
// only the owners' descriptors, then asks the kernel for the listening
// sockets of each network namespace they are in (once per namespace): by
// sock_diag for agentty's own namespace, from /proc/PID/net for others. Its
// cost grows with the session's descriptors and the namespace's listening
// sockets, not with the machine's processes or connections. Owners that
// exited meanwhile are skipped.
func Scan(owners []Owner) ([]Socket, error) {
	ss, _, err := scan(owners)
	return ss, err
}

// scan is Scan, also counting the owners' descriptors.
func scan(owners []Owner) ([]Socket, int, error) {
	held := map[uint64]Owner{}
	nfds := 0
	nsPID := map[string]int{} // network namespace -> a pid in it
	var buf []byte
	for _, o := range owners {
		dir := "/proc/" + strconv.Itoa(o.PID)
		fdDir, err := os.Open(dir + "/fd")
		if err != nil {
			continue
		}
		names, _ := fdDir.Readdirnames(-1)
		nfds += len(names)
		hasSock := false
		for _, n := range names {
			var ino uint64
			if ino, buf = socketInode(int(fdDir.Fd()), n, buf); ino == 0 {
				continue
			}
			hasSock = true
			if prev, ok := held[ino]; !ok || o.PID < prev.PID {
				held[ino] = o
			}
		}
		fdDir.Close()
		if !hasSock {
			continue
		}
		ns, err := os.Readlink(dir + "/ns/net")
		if err != nil {
			continue
		}
		if _, ok := nsPID[ns]; !ok {
			nsPID[ns] = o.PID
		}
	}
	if len(held) == 0 {
		return nil, nfds, nil
	}
	owner := func(ino uint64) (Owner, bool) { o, ok := held[ino]; return o, ok }
	var out []Socket
	for ns, pid := range nsPID {
		if ns == ownNetNS {
			if ss, err := diagListening(owner); err == nil {
				out = append(out, ss...)
				continue
			}
		}
		for _, t := range Tables {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/net/" + t)
			if err != nil {
				continue // no IPv6, or the process is gone
			}
			out = append(out, Parse(t, b, binary.NativeEndian, owner)...)
		}
	}
	return Sort(out), nfds, nil
}

// socketInode returns the inode of the "socket:[N]" descriptor link name in
// the fd directory dir, 0 for anything else; buf is reused between calls.
func socketInode(dir int, name string, buf []byte) (uint64, []byte) {
	if cap(buf) < 64 {
		buf = make([]byte, 64)
	}
	buf = buf[:64]
	n, err := readlinkat(dir, name, buf)
	if err != nil {
		return 0, buf
	}
	s := string(buf[:n])
	if !strings.HasPrefix(s, "socket:[") || !strings.HasSuffix(s, "]") {
		return 0, buf
	}
	ino, _ := strconv.ParseUint(s[len("socket:["):len(s)-1], 10, 64)
	return ino, buf
}
