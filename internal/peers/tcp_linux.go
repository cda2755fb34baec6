//go:build linux

package peers

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// tcpHolders are the descendants of self that hold the other end of c, a
// connection accepted here: the peer socket's inode from this network
// namespace's socket table, then the descendants' descriptors. A peer
// elsewhere (another machine, another namespace) has no entry and gives
// none. Every session process is a descendant: the server is their
// subreaper.
func tcpHolders(c *net.TCPConn, self int) []int {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return nil
	}
	ino, asked := diagInode(remote, local)
	if !asked {
		ino = peerInode(remote, local)
	}
	if ino == "" {
		return nil
	}
	want := "socket:[" + ino + "]"
	var out []int
	for _, pid := range descendants(self) {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		names, err := readNames(dir)
		if err != nil {
			continue
		}
		for _, n := range names {
			if l, err := os.Readlink(dir + n); err == nil && l == want {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// peerInode finds the socket whose local address is peer and remote
// address is ours in /proc/self/net/tcp and tcp6 ("" when none).
func peerInode(peer, ours *net.TCPAddr) string {
	for _, t := range []struct {
		file string
		v6   bool
	}{{"tcp", false}, {"tcp6", true}} {
		pl, ol := procAddr(peer, t.v6), procAddr(ours, t.v6)
		if pl == "" || ol == "" {
			continue
		}
		f, err := os.Open("/proc/self/net/" + t.file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			fs := strings.Fields(sc.Text())
			if len(fs) >= 10 && fs[1] == pl && fs[2] == ol {
				f.Close()
				return fs[9]
			}
		}
		f.Close()
	}
	return ""
}

// procAddr writes a as the kernel's socket tables do: the address's 32-bit
// words in host order, in hex, then the port. An IPv4 address in the tcp6
// table is IPv4-mapped.
func procAddr(a *net.TCPAddr, v6 bool) string {
	var b strings.Builder
	if ip4 := a.IP.To4(); !v6 {
		if ip4 == nil {
			return ""
		}
		fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(ip4))
	} else {
		ip := a.IP.To16()
		if ip == nil {
			return ""
		}
		for i := 0; i < 16; i += 4 {
			fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(ip[i:i+4]))
		}
	}
	fmt.Fprintf(&b, ":%04X", a.Port)
	return b.String()
}

// descendants lists the processes below root from their parents' children
// lists (every thread's: a child belongs to the thread that forked it), so
// the cost grows with root's tree, not the machine's processes.
func descendants(root int) []int {
	var out []int
	seen := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		dir := "/proc/" + strconv.Itoa(p) + "/task/"
		tids, err := readNames(dir)
		if err != nil {
			continue
		}
		for _, tid := range tids {
			b, err := os.ReadFile(dir + tid + "/children")
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil && !seen[c] {
					seen[c] = true
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
