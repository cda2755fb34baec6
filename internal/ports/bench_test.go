//go:build linux

package ports

import (
	"bufio"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// server starts a python TCP server that accepts conns connections and
// holds them, and returns its pid and port once it holds them all.
func server(tb testing.TB, conns int) (int, []net.Conn) {
	tb.Helper()
	cmd := exec.Command("python3", "-c", `
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4096)
print(s.getsockname()[1], flush=True)
held = [s.accept()[0] for _ in range(int(sys.argv[1]))]
print("held", flush=True)
sys.stdin.read()
`, strconv.Itoa(conns))
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Skip("python3:", err)
	}
	tb.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	port := strings.TrimSpace(line)
	var cs []net.Conn
	for range conns {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			tb.Fatal(err)
		}
		cs = append(cs, c)
	}
	tb.Cleanup(func() {
		for _, c := range cs {
			c.Close()
		}
	})
	if line, err := r.ReadString('\n'); err != nil || line != "held\n" {
		tb.Fatalf("server: %q %v", line, err)
	}
	return cmd.Process.Pid, cs
}

func TestScan_ServerHoldingConnections(t *testing.T) {
	pid, _ := server(t, 100)
	ss, err := Scan([]Owner{{PID: pid, Command: "python3"}})
	if err != nil || len(ss) != 1 || ss[0].Proto != "tcp" || ss[0].Address != "127.0.0.1" || ss[0].PID != pid {
		t.Fatalf("Scan = %+v, %v; want the one listening socket (connections are not listening)", ss, err)
	}
}

// BenchmarkScan is the cost of one scan of a server's descriptors and its
// namespace's socket tables: idle, and holding 1,000 connections (whose
// other ends are this process's, so the tables hold 2,000 more rows).
func BenchmarkScan(b *testing.B) {
	for _, conns := range []int{0, 1000} {
		b.Run("conns="+strconv.Itoa(conns), func(b *testing.B) {
			pid, _ := server(b, conns)
			owners := []Owner{{PID: pid, Command: "python3"}}
			for b.Loop() {
				ss, err := Scan(owners)
				if err != nil || len(ss) != 1 {
					b.Fatalf("Scan = %+v, %v", ss, err)
				}
			}
		})
	}
}

// BenchmarkScanner is a wait's repeated scan of the same server: after the
// first, one sock_diag dump while nothing changed.
func BenchmarkScanner(b *testing.B) {
	for _, conns := range []int{0, 1000} {
		b.Run("conns="+strconv.Itoa(conns), func(b *testing.B) {
			pid, _ := server(b, conns)
			owners := []Owner{{PID: pid, Command: "python3"}}
			var sc Scanner
			for b.Loop() {
				ss, err := sc.Scan(owners)
				if err != nil || len(ss) != 1 {
					b.Fatalf("Scan = %+v, %v", ss, err)
				}
			}
		})
	}
}

func TestScanner_SeesNewListener(t *testing.T) {
	var sc Scanner
	pid, _ := server(t, 10)
	owners := []Owner{{PID: pid, Command: "python3"}}
	if ss, err := sc.Scan(owners); err != nil || len(ss) != 1 {
		t.Fatalf("first scan %+v %v", ss, err)
	}
	pid2, _ := server(t, 0)
	owners = append(owners, Owner{PID: pid2, Command: "python3"})
	if ss, err := sc.Scan(owners); err != nil || len(ss) != 2 {
		t.Fatalf("after a second server joined: %+v %v", ss, err)
	}
}

// TestScanner_FewDescriptors: a session with a handful of descriptors and
// no socket among them is answered from its descriptors alone, with no
// sock_diag dump (list_sessions scans every session); once it listens,
// the next scan sees it.
func TestScanner_FewDescriptors(t *testing.T) {
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	var sc Scanner
	owners := []Owner{{PID: cmd.Process.Pid, Command: "cat"}}
	before := diagDumps.Load()
	for i := range 3 {
		if ss, err := sc.Scan(owners); err != nil || len(ss) != 0 {
			t.Fatalf("scan %d of cat: %+v, %v; want no sockets", i, ss, err)
		}
	}
	if n := diagDumps.Load() - before; n != 0 {
		t.Errorf("3 scans of a session without sockets made %d sock_diag dumps, want 0", n)
	}
	pid, _ := server(t, 0)
	owners = append(owners, Owner{PID: pid, Command: "python3"})
	if ss, err := sc.Scan(owners); err != nil || len(ss) != 1 || ss[0].PID != pid {
		t.Fatalf("after a server joined: %+v, %v; want its listening socket", ss, err)
	}
}
