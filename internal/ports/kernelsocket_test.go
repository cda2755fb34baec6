package ports

import (
	"net/netip"
	"testing"

	"github.com/agentty/agentty/internal/darwinproc"
)

func TestFromDarwin_Sockets(t *testing.T) {
	for _, c := range []struct {
		name string
		si   darwinproc.SocketInfo
		want Socket
		ok   bool
	}{
		{"tcp4 listening", darwinproc.SocketInfo{Kind: darwinproc.KindTCP, Family: darwinproc.AFInet, Handle: 7,
			LocalAddr: netip.MustParseAddr("127.0.0.1"), LocalPort: 8080, TCPState: darwinproc.TCPListen},
			Socket{Proto: "tcp", Address: "127.0.0.1", Port: 8080, Inode: 7}, true},
		{"tcp6 any", darwinproc.SocketInfo{Kind: darwinproc.KindTCP, Family: darwinproc.AFInet6, Handle: 8,
			LocalAddr: netip.IPv6Unspecified(), LocalPort: 443, TCPState: darwinproc.TCPListen},
			Socket{Proto: "tcp6", Address: "::", Port: 443, Inode: 8}, true},
		{"tcp established", darwinproc.SocketInfo{Kind: darwinproc.KindTCP, Family: darwinproc.AFInet,
			LocalAddr: netip.MustParseAddr("127.0.0.1"), LocalPort: 8080, RemotePort: 5000, TCPState: darwinproc.TCPEstablished},
			Socket{}, false},
		{"udp bound", darwinproc.SocketInfo{Kind: darwinproc.KindIn, Family: darwinproc.AFInet, Protocol: darwinproc.ProtoUDP,
			Handle: 9, LocalAddr: netip.IPv4Unspecified(), LocalPort: 5353, TCPState: -1},
			Socket{Proto: "udp", Address: "0.0.0.0", Port: 5353, Inode: 9}, true},
		{"udp connected", darwinproc.SocketInfo{Kind: darwinproc.KindIn, Family: darwinproc.AFInet6, Protocol: darwinproc.ProtoUDP,
			LocalAddr: netip.IPv6Loopback(), LocalPort: 5353, RemotePort: 53, TCPState: -1},
			Socket{}, false},
		{"unix accepting", darwinproc.SocketInfo{Kind: darwinproc.KindUnix, Family: darwinproc.AFUnix, Type: darwinproc.SockStream,
			AcceptConn: true, Handle: 10, Path: "/tmp/app.sock", TCPState: -1},
			Socket{Proto: "unix", Path: "/tmp/app.sock", Inode: 10}, true},
		{"unix datagram", darwinproc.SocketInfo{Kind: darwinproc.KindUnix, Family: darwinproc.AFUnix, Type: darwinproc.SockDgram,
			Path: "/tmp/log.sock", TCPState: -1},
			Socket{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := fromDarwin(c.si)
			if ok != c.ok || got != c.want {
				t.Fatalf("fromDarwin = %+v, %v; want %+v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
