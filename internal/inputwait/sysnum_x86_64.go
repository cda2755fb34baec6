package inputwait

// syscallsX86_64 lists the x86-64 syscalls the decision depends on, plus a few
// common blocking ones so Detail can name them.
var syscallsX86_64 = [...]sysInfo{
	{0, sysRead, "read"},
	{17, sysRead, "pread64"},
	{19, sysRead, "readv"},
	{295, sysRead, "preadv"},
	{327, sysRead, "preadv2"},
	{23, sysSelect, "select"},
	{270, sysSelect, "pselect6"},
	{7, sysPoll, "poll"},
	{271, sysPoll, "ppoll"},
	{232, sysEpoll, "epoll_wait"},
	{281, sysEpoll, "epoll_pwait"},
	{441, sysEpoll, "epoll_pwait2"},
	{61, sysWait, "wait4"},
	{247, sysWait, "waitid"},
	{202, sysFutex, "futex"},
	{35, sysSleep, "nanosleep"},
	{230, sysSleep, "clock_nanosleep"},
	{34, sysSleep, "pause"},
	{130, sysSleep, "rt_sigsuspend"},
	{128, sysOther, "rt_sigtimedwait"},
	{43, sysOther, "accept"},
	{288, sysOther, "accept4"},
	{45, sysOther, "recvfrom"},
	{47, sysOther, "recvmsg"},
	{1, sysOther, "write"},
	{257, sysOther, "openat"},
	{426, sysOther, "io_uring_enter"},
}
