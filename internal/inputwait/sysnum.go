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
	sysSleep                 // nanosleep, pause: waits for time or a signal
)

// sysInfo is one row of the per-architecture syscall table.
type sysInfo struct {
	nr   int
	kind sysKind
	name string
}

// syscallTableFor returns Linux's table of an architecture, named as Go or
// uname -m names it; nil for others. The tables describe Linux whatever
// this machine runs: Remote judges a Linux host's answers with them.
func syscallTableFor(arch string) []sysInfo {
	switch arch {
	case "amd64", "x86_64":
		return syscallsX86_64[:]
	case "arm64", "aarch64":
		return syscallsAArch64[:]
	}
	return nil
}

// lookupIn returns the kind and name of syscall nr in table; unknown
// numbers are sysOther with an empty name.
func lookupIn(table []sysInfo, nr int) (sysKind, string) {
	for i := range table {
		if table[i].nr == nr {
			return table[i].kind, table[i].name
		}
	}
	return sysOther, ""
}
