package ports

import (
	"net"
	"os"
	"testing"
)

// Mac only: this process's own listener, and not its connection.
func TestScan_OwnListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ss, err := Scan([]Owner{{PID: os.Getpid(), Command: "ports.test"}})
	port := ln.Addr().(*net.TCPAddr).Port
	if err != nil || len(ss) != 1 || ss[0].Proto != "tcp" || ss[0].Address != "127.0.0.1" || ss[0].Port != port || ss[0].PID != os.Getpid() {
		t.Fatalf("Scan = %+v, %v; want the one listener on 127.0.0.1:%d", ss, err, port)
	}
}
