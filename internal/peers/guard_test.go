//go:build linux

package peers

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// sessions is a fixed Sessions: no roots or groups, and held says whether
// a held session exists.
type sessions struct{ held string }

func (sessions) Root(int) (string, string, bool)     { return "", "", false }
func (sessions) Group(string) (string, string, bool) { return "", "", false }
func (s sessions) Contained() (string, string)       { return "s1", s.held }

// TestProcAddr_KernelFormat: addresses are written as /proc/net/tcp and
// tcp6 print them, IPv4 in tcp6 as IPv4-mapped.
func TestProcAddr_KernelFormat(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the expected strings are little-endian")
	}
	for _, c := range []struct {
		name string
		addr *net.TCPAddr
		v6   bool
		want string
	}{
		{"ipv4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7777}, false, "0100007F:1E61"},
		{"ipv4 mapped", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}, true, "0000000000000000FFFF00000100007F:0050"},
		{"ipv6 loopback", &net.TCPAddr{IP: net.IPv6loopback, Port: 443}, true, "00000000000000000000000001000000:01BB"},
		{"ipv6 in tcp", &net.TCPAddr{IP: net.IPv6loopback, Port: 443}, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := procAddr(c.addr, c.v6); got != c.want {
				t.Fatalf("procAddr = %q, want %q", got, c.want)
			}
		})
	}
}

// TestGuard_TCPHolders: the process holding a loopback connection's other
// end is found among the server's descendants only; here the "server" is
// the test itself, so its own client end is found from its parent's view
// and not from its own.
func TestGuard_TCPHolders(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	t.Run("a descendant's end", func(t *testing.T) {
		got := tcpHolders(sc.(*net.TCPConn), os.Getppid())
		if len(got) != 1 || got[0] != os.Getpid() {
			t.Fatalf("holders %v, want [%d]", got, os.Getpid())
		}
	})
	t.Run("sock_diag and the socket table agree", func(t *testing.T) {
		remote, local := sc.RemoteAddr().(*net.TCPAddr), sc.LocalAddr().(*net.TCPAddr)
		ino, asked := diagInode(remote, local)
		if !asked || ino == "" || ino != peerInode(remote, local) {
			t.Fatalf("sock_diag: %q (asked %v), /proc/net/tcp: %q", ino, asked, peerInode(remote, local))
		}
		if ino, asked := diagInode(local, remote); !asked || ino == peerInode(remote, local) {
			t.Fatalf("sock_diag found the server's end %q (asked %v) as the peer's", ino, asked)
		}
	})
	t.Run("not a descendant", func(t *testing.T) {
		if got := tcpHolders(sc.(*net.TCPConn), os.Getpid()); len(got) != 0 {
			t.Fatalf("holders %v, want none", got)
		}
	})
}

// BenchmarkGuard_Check is the cost of a door's peer check per connection:
// a unix peer (the normal case: a process of no session) and a loopback
// TCP peer while a held session exists (the socket table and the
// descriptors of this process's descendants are read).
func BenchmarkGuard_Check(b *testing.B) {
	dir := b.TempDir()
	ul, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		b.Fatal(err)
	}
	defer ul.Close()
	uc, err := net.Dial("unix", filepath.Join(dir, "s"))
	if err != nil {
		b.Fatal(err)
	}
	defer uc.Close()
	us, err := ul.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer us.Close()
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer tl.Close()
	tc, err := net.Dial("tcp", tl.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer tc.Close()
	ts, err := tl.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer ts.Close()
	for _, c := range []struct {
		name string
		conn net.Conn
	}{{"unix", us}, {"tcp while a session is held", ts}} {
		b.Run(c.name, func(b *testing.B) {
			g := New(sessions{held: "sandbox"}, nil)
			for b.Loop() {
				if err := g.Check("bench", c.conn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGuard_UnixPeerExited: a unix peer that connected and was gone
// before its check (it could have handed the connection to its parent,
// leaving its pid to be judged or reused) is refused, and one that is
// still there is judged.
func TestGuard_UnixPeerExited(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	g := New(sessions{}, nil)
	t.Run("exited", func(t *testing.T) {
		cmd := exec.Command("python3", "-c", "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.detach()", sock)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		err = g.Check("test door", c)
		var re *RefusedError
		if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || re.Why != errExited.Error() || re.PID != cmd.Process.Pid {
			t.Fatalf("Check = %v, want a refusal of pid %d for having exited", err, cmd.Process.Pid)
		}
	})
	t.Run("live", func(t *testing.T) {
		cc, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := g.Check("test door", c); err != nil {
			t.Fatalf("Check = %v, want nil for a live process of no session", err)
		}
	})
}
