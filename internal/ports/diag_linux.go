//go:build linux

package ports

// Socket lists from the kernel's sock_diag netlink interface (what ss
// uses). Reading /proc/net/tcp walks every bucket of the TCP hash tables,
// tens of milliseconds on a big machine even when it lists nothing; a
// sock_diag dump asking for listening sockets only walks the listening
// table. It sees the namespace of this process, so Scan uses it only for
// processes in that namespace.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

const (
	tcpStateListen = 10 // TCP_LISTEN, also the state of a listening unix socket
	tcpStateClose  = 7  // TCP_CLOSE: an unconnected (bound) UDP socket

	sizeofInetDiagReq = 56 // struct inet_diag_req_v2
	sizeofInetDiagMsg = 72 // struct inet_diag_msg
	sizeofUnixDiagReq = 24 // struct unix_diag_req
	sizeofUnixDiagMsg = 16 // struct unix_diag_msg

	unixDiagShowName = 1 // UDIAG_SHOW_NAME
	unixDiagName     = 0 // UNIX_DIAG_NAME attribute
)

// diagDumps counts diagListening calls, so a test can tell a scan that
// asked the kernel from one that did not need to.
var diagDumps atomic.Int64

// diagListening lists the listening sockets of this process's network
// namespace whose inode want holds.
func diagListening(want func(uint64) (Owner, bool)) ([]Socket, error) {
	diagDumps.Add(1)
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("sock_diag: %w", err)
	}
	var out []Socket
	buf := make([]byte, 32<<10)
	for _, q := range []struct {
		proto  string
		family uint8
		ipp    uint8
		states uint32
	}{
		{"tcp", unix.AF_INET, unix.IPPROTO_TCP, 1 << tcpStateListen},
		{"tcp6", unix.AF_INET6, unix.IPPROTO_TCP, 1 << tcpStateListen},
		{"udp", unix.AF_INET, unix.IPPROTO_UDP, 1 << tcpStateClose},
		{"udp6", unix.AF_INET6, unix.IPPROTO_UDP, 1 << tcpStateClose},
	} {
		req := make([]byte, sizeofInetDiagReq)
		req[0], req[1] = q.family, q.ipp
		binary.NativeEndian.PutUint32(req[4:], q.states)
		err := dump(fd, req, buf, func(m []byte) {
			if len(m) < sizeofInetDiagMsg {
				return
			}
			ino := uint64(binary.NativeEndian.Uint32(m[68:]))
			o, ok := want(ino)
			port := int(binary.BigEndian.Uint16(m[4:]))
			if !ok || port == 0 {
				return
			}
			var a netip.Addr
			if q.family == unix.AF_INET {
				a = netip.AddrFrom4([4]byte(m[8:12]))
			} else {
				a = netip.AddrFrom16([16]byte(m[8:24]))
			}
			out = append(out, Socket{Proto: q.proto, Address: a.String(), Port: port, Inode: ino, PID: o.PID, Command: o.Command})
		})
		if err != nil && !errors.Is(err, unix.ENOENT) { // ENOENT: no such protocol (no IPv6)
			return nil, err
		}
	}
	req := make([]byte, sizeofUnixDiagReq)
	req[0] = unix.AF_UNIX
	binary.NativeEndian.PutUint32(req[4:], 1<<tcpStateListen)
	binary.NativeEndian.PutUint32(req[12:], unixDiagShowName)
	err = dump(fd, req, buf, func(m []byte) {
		if len(m) < sizeofUnixDiagMsg || (m[1] != unix.SOCK_STREAM && m[1] != unix.SOCK_SEQPACKET) {
			return
		}
		ino := uint64(binary.NativeEndian.Uint32(m[4:]))
		o, ok := want(ino)
		if !ok {
			return
		}
		s := Socket{Proto: "unix", Inode: ino, PID: o.PID, Command: o.Command}
		for a := m[sizeofUnixDiagMsg:]; len(a) >= 4; {
			l := int(binary.NativeEndian.Uint16(a))
			if l < 4 || l > len(a) {
				break
			}
			if binary.NativeEndian.Uint16(a[2:]) == unixDiagName {
				name := a[4:l]
				if len(name) > 0 && name[0] == 0 {
					s.Path = "@" + string(name[1:])
				} else {
					s.Path = strings.TrimRight(string(name), "\x00")
				}
			}
			a = a[min(len(a), (l+3)&^3):]
		}
		out = append(out, s)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// dump sends one SOCK_DIAG_BY_FAMILY dump request and calls f with the
// payload of every answer until the dump is done.
func dump(fd int, req, buf []byte, f func([]byte)) error {
	msg := make([]byte, unix.SizeofNlMsghdr+len(req))
	binary.NativeEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(msg[8:], 1)
	copy(msg[unix.SizeofNlMsghdr:], req)
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("sock_diag: %w", err)
	}
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("sock_diag: %w", err)
		}
		for b := buf[:n]; len(b) >= unix.SizeofNlMsghdr; {
			l := int(binary.NativeEndian.Uint32(b))
			if l < unix.SizeofNlMsghdr || l > len(b) {
				return errors.New("sock_diag: malformed answer")
			}
			switch binary.NativeEndian.Uint16(b[4:]) {
			case unix.NLMSG_DONE:
				return nil
			case unix.NLMSG_ERROR:
				if l >= unix.SizeofNlMsghdr+4 {
					if e := int32(binary.NativeEndian.Uint32(b[unix.SizeofNlMsghdr:])); e != 0 {
						return fmt.Errorf("sock_diag: %w", unix.Errno(-e))
					}
				}
				return nil
			default:
				f(b[unix.SizeofNlMsghdr:l])
			}
			b = b[min(len(b), (l+3)&^3):]
		}
	}
}

// ownNetNS is this process's network namespace (its /proc link), read once.
var ownNetNS, _ = os.Readlink("/proc/self/ns/net")
