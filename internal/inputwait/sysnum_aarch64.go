package inputwait

// syscallsAArch64 lists the arm64 syscalls the decision depends on, plus a few
// common blocking ones so Detail can name them. arm64 has no select, poll or
// epoll_wait; libc uses pselect6, ppoll and epoll_pwait.
var syscallsAArch64 = [...]sysInfo{
	{63, sysRead, "read"},
	{65, sysRead, "readv"},
	{67, sysRead, "pread64"},
	{69, sysRead, "preadv"},
	{286, sysRead, "preadv2"},
	{72, sysSelect, "pselect6"},
	{73, sysPoll, "ppoll"},
	{22, sysEpoll, "epoll_pwait"},
	{441, sysEpoll, "epoll_pwait2"},
	{260, sysWait, "wait4"},
	{95, sysWait, "waitid"},
	{98, sysFutex, "futex"},
	{101, sysSleep, "nanosleep"},
	{115, sysSleep, "clock_nanosleep"},
	{133, sysSleep, "rt_sigsuspend"},
	{137, sysOther, "rt_sigtimedwait"},
	{202, sysOther, "accept"},
	{242, sysOther, "accept4"},
	{207, sysOther, "recvfrom"},
	{212, sysOther, "recvmsg"},
	{64, sysOther, "write"},
	{56, sysOther, "openat"},
	{426, sysOther, "io_uring_enter"},
}
