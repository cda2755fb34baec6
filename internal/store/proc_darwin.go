package store

import "golang.org/x/sys/unix"

// szomb is p_stat of a zombie (sys/proc.h SZOMB).
const szomb = 5

// procStart returns a process's start time in microseconds since the
// epoch (kinfo_proc's p_starttime, from sysctl kern.proc.pid, which
// answers for any user's process), or 0 if it does not exist or has
// exited. With the pid it names one process even after the pid is
// reused; a zombie has ended, as on Linux.
func procStart(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid || kp.Proc.P_stat == szomb {
		return 0
	}
	return kp.Proc.P_starttime.Sec*1e6 + int64(kp.Proc.P_starttime.Usec)
}
