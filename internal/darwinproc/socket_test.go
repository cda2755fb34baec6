package darwinproc

import (
	"errors"
	"net/netip"
	"testing"
)

// sockBuf builds a socket_fdinfo: soi_so at 160, type 176, protocol 180,
// family 184, options 188, kind 256, the soi_proto union at 264.
func sockBuf(kind, family, typ, proto int32, options uint16) []byte {
	b := make([]byte, 792)
	put(b, 160, uint64(0xffffff80_12345678))
	put(b, 176, typ)
	put(b, 180, proto)
	put(b, 184, family)
	put(b, 188, options)
	put(b, 256, kind)
	return b
}

func TestDecodeSocket_Kinds(t *testing.T) {
	const in = 264 // in_sockinfo: fport +0, lport +4, faddr +32, laddr +48; tcpsi_state +80
	tcp4 := sockBuf(KindTCP, AFInet, SockStream, ProtoTCP, 0x2)
	put(tcp4, in+4, uint32(0x901f)) // lport 8080, network order in an int
	copy(tcp4[in+48+12:], []byte{127, 0, 0, 1})
	put(tcp4, in+80, int32(TCPListen))

	tcp6 := sockBuf(KindTCP, AFInet6, SockStream, ProtoTCP, 0)
	put(tcp6, in+0, uint32(0xbbcc)) // fport 0xccbb
	put(tcp6, in+4, uint32(0x5000)) // lport 80
	tcp6[in+48+15] = 1              // ::1
	put(tcp6, in+80, int32(TCPEstablished))

	udp := sockBuf(KindIn, AFInet, SockDgram, ProtoUDP, 0)
	put(udp, in+4, uint32(0x3500)) // lport 53
	udpConn := append([]byte(nil), udp...)
	put(udpConn, in+0, uint32(0x3500))
	copy(udpConn[in+32+12:], []byte{10, 0, 0, 1})

	unix := sockBuf(KindUnix, AFUnix, SockStream, 0, 0x2)
	const sun = in + 16 // un_sockinfo: two handles, then the sockaddr_un
	unix[sun], unix[sun+1] = byte(2+len("/tmp/app.sock")), AFUnix
	put(unix, sun+2, "/tmp/app.sock")
	unixConn := sockBuf(KindUnix, AFUnix, SockStream, 0, 0)

	for _, c := range []struct {
		name      string
		b         []byte
		listening bool
		check     func(SocketInfo) bool
	}{
		{"tcp4 listening", tcp4, true, func(s SocketInfo) bool {
			return s.LocalPort == 8080 && s.LocalAddr == netip.MustParseAddr("127.0.0.1") && s.TCPState == TCPListen &&
				s.Handle == 0xffffff80_12345678 && s.AcceptConn
		}},
		{"tcp6 established", tcp6, false, func(s SocketInfo) bool {
			return s.LocalPort == 80 && s.RemotePort == 0xccbb && s.LocalAddr == netip.IPv6Loopback() && s.TCPState == TCPEstablished
		}},
		{"udp bound", udp, true, func(s SocketInfo) bool {
			return s.LocalPort == 53 && s.LocalAddr == netip.IPv4Unspecified() && s.TCPState == -1
		}},
		{"udp connected", udpConn, false, func(s SocketInfo) bool {
			return s.RemotePort == 53 && s.RemoteAddr == netip.MustParseAddr("10.0.0.1")
		}},
		{"unix accepting", unix, true, func(s SocketInfo) bool { return s.Path == "/tmp/app.sock" }},
		{"unix not accepting", unixConn, false, func(s SocketInfo) bool { return s.Path == "" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := decodeSocket(c.b)
			if err != nil || s.Listening() != c.listening || !c.check(s) {
				t.Fatalf("decodeSocket = %+v, %v; want listening=%v and the fields checked", s, err, c.listening)
			}
		})
	}
	t.Run("short", func(t *testing.T) {
		if _, err := decodeSocket(tcp4[:791]); !errors.Is(err, ErrShort) {
			t.Fatalf("decodeSocket(791 bytes) error = %v, want ErrShort", err)
		}
	})
}
