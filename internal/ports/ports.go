// Package ports finds the sockets a session's processes listen on, from the
// kernel's socket tables (/proc/PID/net/{tcp,tcp6,udp,udp6,unix}) matched to
// the socket descriptors those processes hold, never from their output. On
// macOS the kernel describes each socket descriptor itself (libproc).
//
// Parsing is separate from reading so the SSH backend's remote helper can
// ship the raw table rows of another machine and have them decoded here.
package ports

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/netip"
	"slices"
	"strconv"
)

// ErrUnsupported is returned where sockets cannot be listed (no /proc, or a
// remote host that is not Linux).
var ErrUnsupported = errors.New("listening sockets are not available on this host")

// Socket is one listening socket: TCP in LISTEN, UDP bound to a port, or a
// unix stream or seqpacket socket accepting connections.
type Socket struct {
	Proto   string // tcp, tcp6, udp, udp6 or unix
	Address string // local address (IP), "" for unix
	Port    int    // local port, 0 for unix
	Path    string // unix socket path ("@name" for the abstract namespace)
	Inode   uint64 // the kernel's socket inode
	PID     int    // a process holding it (the lowest pid when several do)
	Command string // that process's command name
}

// Key names the socket by what a client connects to, so a server that
// restarts on the same port is the same listener.
func (s Socket) Key() string {
	if s.Proto == "unix" {
		return "unix " + s.Path
	}
	return s.Proto + " " + s.Address + " " + strconv.Itoa(s.Port)
}

// Owner is a process whose descriptors are searched.
type Owner struct {
	PID     int
	Command string
}

// Tables are the socket tables read per network namespace, in order.
var Tables = []string{"tcp", "tcp6", "udp", "udp6", "unix"}

// Parse decodes one socket table (proto is its file name) and returns the
// listening sockets whose inode owner knows; owner returns false for sockets
// that belong to nobody of interest. order says how addresses are stored:
// the byte order of the machine that wrote the table.
func Parse(proto string, table []byte, order binary.ByteOrder, owner func(inode uint64) (Owner, bool)) []Socket {
	var out []Socket
	for i, line := range bytes.Split(table, []byte{'\n'}) {
		if i == 0 || len(line) == 0 { // the header
			continue
		}
		f := bytes.Fields(line)
		var s Socket
		var ok bool
		if proto == "unix" {
			s, ok = parseUnix(f)
		} else {
			s, ok = parseInet(proto, f, order)
		}
		if !ok {
			continue
		}
		o, mine := owner(s.Inode)
		if !mine {
			continue
		}
		s.PID, s.Command = o.PID, o.Command
		out = append(out, s)
	}
	return out
}

// TCP state LISTEN and the state of an unconnected (bound) UDP socket.
const (
	tcpListen  = "0A"
	udpUnbound = "07"
)

// parseInet decodes "sl local remote st tx:rx tr:when retr uid timeout inode ...".
func parseInet(proto string, f [][]byte, order binary.ByteOrder) (Socket, bool) {
	if len(f) < 10 {
		return Socket{}, false
	}
	st := string(f[3])
	switch proto {
	case "tcp", "tcp6":
		if st != tcpListen {
			return Socket{}, false
		}
	case "udp", "udp6":
		if st != udpUnbound {
			return Socket{}, false
		}
	default:
		return Socket{}, false
	}
	addr, port, ok := decodeAddr(f[1], order)
	if !ok || port == 0 {
		return Socket{}, false
	}
	ino, err := strconv.ParseUint(string(f[9]), 10, 64)
	if err != nil || ino == 0 {
		return Socket{}, false
	}
	return Socket{Proto: proto, Address: addr, Port: port, Inode: ino}, true
}

// decodeAddr decodes "HEXADDR:HEXPORT": the address as the kernel stores it
// (32-bit words in the machine's byte order), the port big-endian.
func decodeAddr(b []byte, order binary.ByteOrder) (string, int, bool) {
	i := bytes.IndexByte(b, ':')
	if i < 0 {
		return "", 0, false
	}
	port, err := strconv.ParseUint(string(b[i+1:]), 16, 16)
	if err != nil {
		return "", 0, false
	}
	raw, err := hex.DecodeString(string(b[:i]))
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return "", 0, false
	}
	var ip [16]byte
	for w := 0; w < len(raw); w += 4 {
		binary.BigEndian.PutUint32(ip[w:], order.Uint32(raw[w:w+4]))
	}
	var a netip.Addr
	if len(raw) == 4 {
		a = netip.AddrFrom4([4]byte(ip[:4]))
	} else {
		a = netip.AddrFrom16(ip)
	}
	return a.String(), int(port), true
}

// Flag of a socket that accepts connections (__SO_ACCEPTCON) and the
// state of one not connected (SS_UNCONNECTED).
const (
	unixAcceptCon   = 0x10000
	unixUnconnected = "01"
)

// parseUnix decodes "Num RefCount Protocol Flags Type St Inode [Path]":
// stream (1) and seqpacket (5) sockets that accept connections.
func parseUnix(f [][]byte) (Socket, bool) {
	if len(f) < 7 {
		return Socket{}, false
	}
	flags, err := strconv.ParseUint(string(f[3]), 16, 32)
	if err != nil || flags&unixAcceptCon == 0 || string(f[5]) != unixUnconnected {
		return Socket{}, false
	}
	if t := string(f[4]); t != "0001" && t != "0005" {
		return Socket{}, false
	}
	ino, err := strconv.ParseUint(string(f[6]), 10, 64)
	if err != nil {
		return Socket{}, false
	}
	s := Socket{Proto: "unix", Inode: ino}
	if len(f) > 7 {
		s.Path = string(bytes.Join(f[7:], []byte{' '}))
	}
	return s, true
}

// Sort orders sockets by protocol, port and path, and drops a socket listed
// twice (a table read for two namespaces that are one).
func Sort(ss []Socket) []Socket {
	slices.SortFunc(ss, compare)
	return slices.CompactFunc(ss, func(a, b Socket) bool { return a.Inode == b.Inode })
}

// compare orders sockets by protocol, port, address and path.
func compare(a, b Socket) int {
	return cmp.Or(cmp.Compare(a.Proto, b.Proto), cmp.Compare(a.Port, b.Port),
		cmp.Compare(a.Address, b.Address), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Inode, b.Inode))
}
