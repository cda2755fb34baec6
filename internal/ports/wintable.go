package ports

import (
	"encoding/binary"
	"net/netip"
	"slices"
)

// Windows's socket tables, as GetExtendedTcpTable and GetExtendedUdpTable
// fill them with the owning pid (iphlpapi's MIB_*TABLE_OWNER_PID): a DWORD
// count, then rows of DWORDs (little-endian: every Windows agentty runs on
// is) and address bytes in network order. Decoded in plain Go so Linux
// tests it.

// rowSize is one row of each table.
var rowSize = map[string]int{
	"tcp":  24, // state, local addr, local port, remote addr, remote port, pid
	"tcp6": 56, // local addr[16], scope, port, remote addr[16], scope, port, state, pid
	"udp":  12, // local addr, local port, pid
	"udp6": 28, // local addr[16], scope, port, pid
}

// mibTCPStateListen is MIB_TCP_STATE_LISTEN.
const mibTCPStateListen = 2

// ParseWindows decodes one table (proto: tcp, tcp6, udp or udp6) and
// returns the listening TCP and bound UDP sockets of owners, by pid.
// Windows has no socket inode: Inode is 0.
func ParseWindows(proto string, b []byte, owners map[int]Owner) []Socket {
	size, ok := rowSize[proto]
	if !ok || len(b) < 4 {
		return nil
	}
	n := int(binary.LittleEndian.Uint32(b))
	var out []Socket
	for i := range n {
		off := 4 + i*size
		if off+size > len(b) {
			break
		}
		r := b[off : off+size]
		var addr netip.Addr
		var port, pid int
		switch proto {
		case "tcp":
			if binary.LittleEndian.Uint32(r) != mibTCPStateListen {
				continue
			}
			addr, port, pid = netip.AddrFrom4([4]byte(r[4:8])), netPort(r[8:]), int(binary.LittleEndian.Uint32(r[20:]))
		case "tcp6":
			if binary.LittleEndian.Uint32(r[48:]) != mibTCPStateListen {
				continue
			}
			addr, port, pid = netip.AddrFrom16([16]byte(r[0:16])), netPort(r[20:]), int(binary.LittleEndian.Uint32(r[52:]))
		case "udp":
			addr, port, pid = netip.AddrFrom4([4]byte(r[0:4])), netPort(r[4:]), int(binary.LittleEndian.Uint32(r[8:]))
		case "udp6":
			addr, port, pid = netip.AddrFrom16([16]byte(r[0:16])), netPort(r[20:]), int(binary.LittleEndian.Uint32(r[24:]))
		}
		o, mine := owners[pid]
		if !mine || port == 0 {
			continue
		}
		out = append(out, Socket{Proto: proto, Address: addr.String(), Port: port, PID: pid, Command: o.Command})
	}
	return out
}

// netPort is a port as the tables hold it: network byte order in the
// DWORD's first two bytes.
func netPort(b []byte) int { return int(b[0])<<8 | int(b[1]) }

// sortWindows orders sockets as Sort does and drops exact repeats; with
// no inode to tell them apart, Sort's compaction would merge them all.
func sortWindows(ss []Socket) []Socket {
	slices.SortFunc(ss, compare)
	return slices.Compact(ss)
}
