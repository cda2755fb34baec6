//go:build windows

package ports

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	iphlpapi            = windows.NewLazySystemDLL("iphlpapi.dll")
	getExtendedTCPTable = iphlpapi.NewProc("GetExtendedTcpTable")
	getExtendedUDPTable = iphlpapi.NewProc("GetExtendedUdpTable")
)

// Table classes (iprtrmib.h): listeners only for TCP, every bound UDP
// socket, each row with its owning pid.
const (
	tcpTableOwnerPIDListener = 3
	udpTableOwnerPID         = 1
)

// Scan lists the listening TCP and bound UDP sockets of owners: Windows
// keeps one table per protocol for the whole machine, each row with its
// owning pid, so its cost grows with the machine's sockets (four calls),
// not the session's. AF_UNIX sockets have no such table and are not
// listed.
func Scan(owners []Owner) ([]Socket, error) {
	byPID := make(map[int]Owner, len(owners))
	for _, o := range owners {
		byPID[o.PID] = o
	}
	if len(byPID) == 0 {
		return nil, nil
	}
	var out []Socket
	for _, t := range []struct {
		proto string
		proc  *windows.LazyProc
		af    uint32
		class uint32
	}{
		{"tcp", getExtendedTCPTable, windows.AF_INET, tcpTableOwnerPIDListener},
		{"tcp6", getExtendedTCPTable, windows.AF_INET6, tcpTableOwnerPIDListener},
		{"udp", getExtendedUDPTable, windows.AF_INET, udpTableOwnerPID},
		{"udp6", getExtendedUDPTable, windows.AF_INET6, udpTableOwnerPID},
	} {
		b, err := readTable(t.proc, t.af, t.class)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.proto, err)
		}
		out = append(out, ParseWindows(t.proto, b, byPID)...)
	}
	return sortWindows(out), nil
}

// readTable calls proc until its buffer holds the table, which may grow
// between the call that sizes it and the one that fills it.
func readTable(proc *windows.LazyProc, af, class uint32) ([]byte, error) {
	if err := proc.Find(); err != nil {
		return nil, errors.Join(ErrUnsupported, err)
	}
	size := uint32(16 << 10)
	for range 8 {
		b := make([]byte, size)
		r, _, _ := proc.Call(uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&size)), 0, uintptr(af), uintptr(class), 0)
		switch windows.Errno(r) {
		case 0:
			return b, nil
		case windows.ERROR_INSUFFICIENT_BUFFER:
			size += 4 << 10 // room for sockets opened meanwhile
			continue
		default:
			return nil, windows.Errno(r)
		}
	}
	return nil, errors.New("the socket table kept growing")
}

// Scanner scans one session again and again. Windows's tables are read
// whole each time: nothing cheaper tells that they did not change.
type Scanner struct{}

// Scan is Scan(owners).
func (*Scanner) Scan(owners []Owner) ([]Socket, error) { return Scan(owners) }
