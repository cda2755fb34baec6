package ports

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"testing"
)

// table builds a Windows socket table of rows.
func table(rows ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(rows)))
	for _, r := range rows {
		b = append(b, r...)
	}
	return b
}

func dw(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// port is a port as Windows stores it in a DWORD: network order first.
func port(p int) []byte { return []byte{byte(p >> 8), byte(p), 0, 0} }

func cat(parts ...[]byte) []byte { return slices.Concat(parts...) }

func TestParseWindows_Tables(t *testing.T) {
	owners := map[int]Owner{4242: {PID: 4242, Command: "python.exe"}}
	v4 := func(s string) []byte { a := netip.MustParseAddr(s).As4(); return a[:] }
	v6 := func(s string) []byte { a := netip.MustParseAddr(s).As16(); return a[:] }
	tcp := table(
		cat(dw(2), v4("127.0.0.1"), port(8000), v4("0.0.0.0"), port(0), dw(4242)),      // listening, ours
		cat(dw(5), v4("127.0.0.1"), port(8001), v4("10.0.0.2"), port(51000), dw(4242)), // established: not a listener
		cat(dw(2), v4("0.0.0.0"), port(445), v4("0.0.0.0"), port(0), dw(4)),            // System's
	)
	tcp6 := table(cat(v6("::1"), dw(0), port(9229), v6("::"), dw(0), port(0), dw(2), dw(4242)))
	udp := table(
		cat(v4("0.0.0.0"), port(5353), dw(4242)),
		cat(v4("0.0.0.0"), port(0), dw(4242)), // not bound to a port
	)
	udp6 := table(cat(v6("fe80::1"), dw(3), port(546), dw(4242)))
	cases := []struct {
		proto string
		b     []byte
		want  []Socket
	}{
		{"tcp", tcp, []Socket{{Proto: "tcp", Address: "127.0.0.1", Port: 8000, PID: 4242, Command: "python.exe"}}},
		{"tcp6", tcp6, []Socket{{Proto: "tcp6", Address: "::1", Port: 9229, PID: 4242, Command: "python.exe"}}},
		{"udp", udp, []Socket{{Proto: "udp", Address: "0.0.0.0", Port: 5353, PID: 4242, Command: "python.exe"}}},
		{"udp6", udp6, []Socket{{Proto: "udp6", Address: "fe80::1", Port: 546, PID: 4242, Command: "python.exe"}}},
		{"tcp", tcp[:len(tcp)-3], []Socket{{Proto: "tcp", Address: "127.0.0.1", Port: 8000, PID: 4242, Command: "python.exe"}}}, // a cut last row is dropped
		{"unix", tcp, nil},
		{"tcp", []byte{1}, nil},
	}
	for _, c := range cases {
		t.Run(c.proto, func(t *testing.T) {
			if got := ParseWindows(c.proto, c.b, owners); !slices.Equal(got, c.want) {
				t.Fatalf("ParseWindows = %+v, want %+v", got, c.want)
			}
		})
	}
	t.Run("sorted without merging inode-less sockets", func(t *testing.T) {
		var all []Socket
		for _, c := range cases[:4] {
			all = append(all, ParseWindows(c.proto, c.b, owners)...)
		}
		all = append(all, all[0])
		got := sortWindows(all)
		var keys []string
		for _, s := range got {
			keys = append(keys, s.Key())
		}
		want := []string{"tcp 127.0.0.1 8000", "tcp6 ::1 9229", "udp 0.0.0.0 5353", "udp6 fe80::1 546"}
		if !slices.Equal(keys, want) {
			t.Fatalf("sortWindows = %q, want %q", keys, want)
		}
	})
}
