//go:build linux || darwin

package peers

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestOf_Self: the peer of a connection this process made is this
// process, with its uid, read from both ends.
func TestOf_Self(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	want := Cred{UID: os.Getuid(), PID: os.Getpid()}
	for _, c := range []struct {
		name string
		conn *net.UnixConn
	}{{"accepted", server}, {"dialled", client}} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Of(c.conn)
			if err != nil || got != want {
				t.Fatalf("Of = %+v, %v; want %+v", got, err, want)
			}
		})
	}
}
