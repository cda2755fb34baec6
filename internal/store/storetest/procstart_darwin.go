package storetest

import (
	"testing"

	"golang.org/x/sys/unix"
)

// ProcStart is the process's p_starttime in microseconds since the epoch
// (sysctl kern.proc.pid): with the pid it names one process, as the store
// records its owner on macOS.
func ProcStart(t testing.TB, pid int) int64 {
	t.Helper()
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid {
		t.Fatalf("kern.proc.pid %d: %v (pid %d)", pid, err, kp.Proc.P_pid)
	}
	return kp.Proc.P_starttime.Sec*1e6 + int64(kp.Proc.P_starttime.Usec)
}
