package backend

import (
	"crypto/rand"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Anonymous pipes (CreatePipe) are synchronous: a ReadFile blocked on one
// cannot be woken by closing it, and it takes no deadline. So agentty's
// ends are named pipes opened FILE_FLAG_OVERLAPPED, which os.NewFile puts
// on the runtime's I/O completion port (deadlines and Close work as on
// Linux), and the far ends, the child's or the pseudo console's, are
// ordinary synchronous handles, as programs expect.

const pipeBufSize = 64 << 10

var pipeSeq atomic.Uint64

// pipePair makes one pipe. ourRead: agentty reads and the far end writes
// (output); else agentty writes (input). inheritable marks the far end so
// a child can inherit it (pipe sessions; a pseudo console duplicates it
// instead).
func pipePair(ourRead, inheritable bool) (ours *os.File, far windows.Handle, err error) {
	// The random part keeps other users from creating the name first;
	// FILE_FLAG_FIRST_PIPE_INSTANCE fails if one did, and one instance
	// only means nobody can connect after our own client has.
	var r [8]byte
	_, _ = rand.Read(r[:])
	name := fmt.Sprintf(`\\.\pipe\agentty-%d-%d-%x`, os.Getpid(), pipeSeq.Add(1), r)
	n16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, 0, err
	}
	access, farAccess := uint32(windows.PIPE_ACCESS_OUTBOUND), uint32(windows.GENERIC_READ|windows.FILE_WRITE_ATTRIBUTES)
	if ourRead {
		access, farAccess = windows.PIPE_ACCESS_INBOUND, windows.GENERIC_WRITE|windows.FILE_READ_ATTRIBUTES
	}
	srv, err := windows.CreateNamedPipe(n16, access|windows.FILE_FLAG_OVERLAPPED|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, pipeBufSize, pipeBufSize, 0, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("create pipe: %w", err)
	}
	var sa *windows.SecurityAttributes
	if inheritable {
		sa = &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), InheritHandle: 1}
	}
	far, err = windows.CreateFile(n16, farAccess, 0, sa, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		windows.CloseHandle(srv)
		return nil, 0, fmt.Errorf("open pipe: %w", err)
	}
	return os.NewFile(uintptr(srv), name), far, nil
}

var procPeekNamedPipe = windows.NewLazySystemDLL("kernel32.dll").NewProc("PeekNamedPipe")

// pipeAvail counts the bytes waiting in f's pipe (PeekNamedPipe, which
// x/sys/windows does not wrap).
func pipeAvail(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var avail uint32
	var perr error
	cerr := rc.Control(func(h uintptr) {
		r, _, e := procPeekNamedPipe.Call(h, 0, 0, 0, uintptr(unsafe.Pointer(&avail)), 0)
		if r == 0 {
			perr = e
		}
	})
	if cerr != nil {
		return 0, cerr
	}
	return int(avail), perr
}
