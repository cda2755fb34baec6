//go:build linux && (amd64 || arm64)

package inputwait

// sysKind groups syscalls by what blocking in them means for input waiting.
type sysKind uint8

const (
	sysOther  sysKind = iota // anything not listed: blocking in it is not waiting for input
	sysRead                  // read family: arg0 is the fd
	sysSelect                // select/pselect6: arg0 nfds, arg1 readfds pointer
	sysPoll                  // poll/ppoll: arg0 pollfd array, arg1 count
	sysEpoll                 // epoll_wait family: arg0 is the epoll fd
	sysWait                  // wait4/waitid: a shell waiting for its child
	sysFutex                 // futex: an idle helper thread
)

// sysInfo is one row of the per-architecture syscall table.
type sysInfo struct {
	nr   int
	kind sysKind
	name string
}

// lookupSyscall returns the kind and name of syscall nr; unknown numbers
// are sysOther with an empty name.
func lookupSyscall(nr int) (sysKind, string) {
	for i := range syscallTable {
		if syscallTable[i].nr == nr {
			return syscallTable[i].kind, syscallTable[i].name
		}
	}
	return sysOther, ""
}
