//go:build linux

package peers

import (
	"encoding/binary"
	"net"
	"strconv"

	"golang.org/x/sys/unix"
)

// diagInode asks sock_diag for the one TCP socket whose local end is peer
// and remote end ours: an exact lookup by the four-tuple, where reading
// /proc/net/tcp walks every socket of the namespace. ok is false when the
// kernel could not be asked; ino is "" when there is no such socket.
func diagInode(peer, ours *net.TCPAddr) (ino string, ok bool) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	tv := unix.Timeval{Sec: 1}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	buf := make([]byte, 8192)
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		req, fits := diagRequest(family, peer, ours)
		if !fits {
			continue
		}
		if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return "", false
		}
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil || n < unix.NLMSG_HDRLEN {
			return "", false
		}
		m := buf[:n]
		switch binary.NativeEndian.Uint16(m[4:]) {
		case sockDiagByFamily:
			if len(m) >= unix.NLMSG_HDRLEN+sizeofInetDiagMsg {
				return strconv.FormatUint(uint64(binary.NativeEndian.Uint32(m[unix.NLMSG_HDRLEN+68:])), 10), true
			}
			return "", false
		case unix.NLMSG_ERROR:
			// ENOENT: no such socket in this family; try the next.
		default:
			return "", false
		}
	}
	return "", true
}

const (
	sockDiagByFamily  = 20 // SOCK_DIAG_BY_FAMILY
	sizeofInetDiagReq = 56 // struct inet_diag_req_v2
	sizeofInetDiagMsg = 72 // struct inet_diag_msg
)

// diagRequest is a netlink message asking for the socket src → dst in
// family (IPv4 addresses IPv4-mapped in AF_INET6); fits is false when the
// addresses cannot be written in it.
func diagRequest(family uint8, src, dst *net.TCPAddr) (msg []byte, fits bool) {
	msg = make([]byte, unix.NLMSG_HDRLEN+sizeofInetDiagReq)
	binary.NativeEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:], sockDiagByFamily)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST)
	r := msg[unix.NLMSG_HDRLEN:]
	r[0], r[1] = family, unix.IPPROTO_TCP
	binary.NativeEndian.PutUint32(r[4:], ^uint32(0)) // every state
	id := r[8:]                                      // struct inet_diag_sockid
	binary.BigEndian.PutUint16(id[0:], uint16(src.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(dst.Port))
	for i, ip := range []net.IP{src.IP, dst.IP} {
		at := id[4+16*i : 4+16*(i+1)]
		if family == unix.AF_INET {
			v4 := ip.To4()
			if v4 == nil {
				return nil, false
			}
			copy(at, v4)
		} else {
			copy(at, ip.To16())
		}
	}
	binary.NativeEndian.PutUint32(id[40:], ^uint32(0)) // INET_DIAG_NOCOOKIE
	binary.NativeEndian.PutUint32(id[44:], ^uint32(0))
	return msg, true
}
