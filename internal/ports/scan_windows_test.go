//go:build windows

package ports

import (
	"net"
	"os"
	"testing"
)

// me is this test process as a session's owner.
var me = Owner{PID: os.Getpid(), Command: "ports.test.exe"}

// findOwn scans this process and fails unless key is among its sockets.
func findOwn(t *testing.T, key string) {
	t.Helper()
	ss, err := Scan([]Owner{me})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range ss {
		if s.PID != me.PID || s.Command != me.Command {
			t.Fatalf("socket %+v is not this process's", s)
		}
		found = found || s.Key() == key
	}
	if !found {
		t.Fatalf("%s not found in %+v", key, ss)
	}
}

// TestScan_OwnTCPListener: this process's listener is found by its pid,
// with its port; another pid finds nothing.
func TestScan_OwnTCPListener(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	findOwn(t, Socket{Proto: "tcp", Address: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port}.Key())
	other, err := Scan([]Owner{{PID: 1 << 30}})
	if err != nil || len(other) != 0 {
		t.Fatalf("Scan(no such pid) = %+v, %v; want none", other, err)
	}
}

// TestScan_OwnUDPSocket: a bound UDP socket is found too.
func TestScan_OwnUDPSocket(t *testing.T) {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	findOwn(t, Socket{Proto: "udp", Address: "127.0.0.1", Port: pc.LocalAddr().(*net.UDPAddr).Port}.Key())
}

// TestReadTable_Decoded: the TCP table Windows fills decodes with this
// process's listener in it at its port, whatever pid the row names (Wine 8
// names 0 for every row, so this is what runs there).
func TestReadTable_Decoded(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := readTable(getExtendedTCPTable, 2, tcpTableOwnerPIDListener) // AF_INET
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ss := ParseWindows("tcp", b, map[int]Owner{0: {}, me.PID: me})
	for _, s := range ss {
		if s.Port == port && s.Address == "127.0.0.1" {
			return
		}
	}
	t.Fatalf("port %d not in the decoded table %+v", port, ss)
}
