//go:build linux

package ports

import (
	"encoding/binary"
	"os"
	"strconv"
	"strings"
)

// Scan lists the listening sockets held by owners on this machine. It reads
// only the owners' descriptors, and the socket tables of each network
// namespace they are in (once per namespace), so its cost grows with the
// session's descriptors and the namespace's sockets, not with the machine's
// processes. Owners that exited meanwhile are skipped.
func Scan(owners []Owner) ([]Socket, error) {
	held := map[uint64]Owner{}
	nsPID := map[string]int{} // network namespace -> a pid in it
	var buf []byte
	for _, o := range owners {
		dir := "/proc/" + strconv.Itoa(o.PID)
		names, err := readDirNames(dir + "/fd")
		if err != nil {
			continue
		}
		hasSock := false
		for _, n := range names {
			var ino uint64
			if ino, buf = socketInode(dir+"/fd/"+n, buf); ino == 0 {
				continue
			}
			hasSock = true
			if prev, ok := held[ino]; !ok || o.PID < prev.PID {
				held[ino] = o
			}
		}
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
		return nil, nil
	}
	owner := func(ino uint64) (Owner, bool) { o, ok := held[ino]; return o, ok }
	var out []Socket
	for _, pid := range nsPID {
		for _, t := range Tables {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/net/" + t)
			if err != nil {
				continue // no IPv6, or the process is gone
			}
			out = append(out, Parse(t, b, binary.NativeEndian, owner)...)
		}
	}
	return Sort(out), nil
}

func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// socketInode returns the inode of a "socket:[N]" descriptor link, 0 for
// anything else; buf is reused between calls.
func socketInode(link string, buf []byte) (uint64, []byte) {
	if cap(buf) < 64 {
		buf = make([]byte, 64)
	}
	buf = buf[:64]
	n, err := readlink(link, buf)
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
