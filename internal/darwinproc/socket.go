package darwinproc

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// struct socket_fdinfo: a proc_fileinfo (24 bytes), then a socket_info.
// Offsets are from the start of socket_fdinfo.
const (
	sizeSocketFDInfo = 792
	offSockHandle    = 24 + 136 // soi_so, after the vinfo_stat
	offSockType      = 24 + 152
	offSockProtocol  = 24 + 156
	offSockFamily    = 24 + 160
	offSockOptions   = 24 + 164
	offSockKind      = 24 + 232
	offSockProto     = 24 + 240 // the soi_proto union
	// in_sockinfo, from offSockProto.
	offInFPort = 0
	offInLPort = 4
	offInFAddr = 32 // in4in6_addr: an IPv4 address is its last 4 bytes
	offInLAddr = 48
	// tcp_sockinfo: an in_sockinfo (80 bytes), then the state.
	offTCPState = 80
	// un_sockinfo: two opaque handles, then the bound sockaddr_un.
	offUnAddr = 16
	lenUnAddr = 255 // SOCK_MAXADDRLEN
)

// Socket kinds, soi_kind (SOCKINFO_*).
const (
	KindGeneric = 0
	KindIn      = 1 // IP, not TCP: UDP, raw
	KindTCP     = 2
	KindUnix    = 3
)

// TCP states, tcpsi_state (TSI_S_*).
const (
	TCPClosed      = 0
	TCPListen      = 1
	TCPEstablished = 4
)

// Address families and socket options as darwin numbers them.
const (
	AFUnix        = 1
	AFInet        = 2
	AFInet6       = 30
	SockStream    = 1
	SockDgram     = 2
	SockSeqpacket = 5
	ProtoTCP      = 6
	ProtoUDP      = 17
	soAcceptConn  = 0x0002 // SO_ACCEPTCONN in soi_options
)

// SocketInfo is what the kernel tells of one socket descriptor.
type SocketInfo struct {
	Kind     int32 // Kind* above
	Family   int32 // AF*
	Type     int32 // Sock*
	Protocol int32 // Proto* (0 for unix)
	// Handle is the kernel's opaque name of the socket (soi_so): the same
	// for every descriptor of it, in any process.
	Handle     uint64
	AcceptConn bool // SO_ACCEPTCONN: listen() was called
	LocalAddr  netip.Addr
	LocalPort  int
	RemoteAddr netip.Addr
	RemotePort int
	TCPState   int32  // TCP* above; -1 when not TCP
	Path       string // a unix socket's bound path
}

// Listening reports a socket that waits for others: TCP in LISTEN, UDP
// bound to a port and connected to none, a unix stream or seqpacket
// socket accepting connections.
func (s SocketInfo) Listening() bool {
	switch s.Kind {
	case KindTCP:
		return s.TCPState == TCPListen && s.LocalPort != 0
	case KindIn:
		return s.Protocol == ProtoUDP && s.LocalPort != 0 && s.RemotePort == 0
	case KindUnix:
		return s.AcceptConn && (s.Type == SockStream || s.Type == SockSeqpacket)
	}
	return false
}

func decodeSocket(b []byte) (SocketInfo, error) {
	if len(b) < sizeSocketFDInfo {
		return SocketInfo{}, fmtShort("socket_fdinfo", len(b), sizeSocketFDInfo)
	}
	i32 := func(off int) int32 { return int32(le.Uint32(b[off:])) }
	s := SocketInfo{
		Kind:       i32(offSockKind),
		Family:     i32(offSockFamily),
		Type:       i32(offSockType),
		Protocol:   i32(offSockProtocol),
		Handle:     le.Uint64(b[offSockHandle:]),
		AcceptConn: le.Uint16(b[offSockOptions:])&soAcceptConn != 0,
		TCPState:   -1,
	}
	p := b[offSockProto:]
	switch s.Kind {
	case KindIn, KindTCP:
		// The ports are in_port_t, network order, widened to int: their
		// two bytes come first in memory on a little-endian machine.
		s.LocalPort = int(binary.BigEndian.Uint16(p[offInLPort:]))
		s.RemotePort = int(binary.BigEndian.Uint16(p[offInFPort:]))
		s.LocalAddr = inAddr(p[offInLAddr:], s.Family)
		s.RemoteAddr = inAddr(p[offInFAddr:], s.Family)
		if s.Kind == KindTCP {
			s.TCPState = int32(le.Uint32(p[offTCPState:]))
		}
	case KindUnix:
		s.Path = sunPath(p[offUnAddr : offUnAddr+lenUnAddr])
	}
	return s, nil
}

// inAddr reads an in4in6_addr / in6_addr union for a socket of family.
func inAddr(b []byte, family int32) netip.Addr {
	if family == AFInet6 {
		return netip.AddrFrom16([16]byte(b[:16]))
	}
	return netip.AddrFrom4([4]byte(b[12:16]))
}

// sunPath reads a struct sockaddr_un: sun_len, sun_family, then the path
// (sun_len bounds it; the kernel also NUL-terminates it).
func sunPath(b []byte) string {
	n := int(b[0])
	if n < 2 || n > len(b) {
		n = len(b)
	}
	return cString(b[2:n])
}

func fmtShort(what string, got, want int) error {
	return fmt.Errorf("%s: %d of %d bytes: %w", what, got, want, ErrShort)
}
