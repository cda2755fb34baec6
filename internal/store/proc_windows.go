//go:build windows

package store

import "golang.org/x/sys/windows"

// procStart returns a process's creation time (100 ns units since 1601),
// or 0 if it does not exist or has exited. With the pid it names one
// process even after the pid is reused. A process object outlives its
// exit while anyone holds a handle to it, so "exited" is asked of the
// object itself (signalled), not of OpenProcess.
func procStart(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	if ev, err := windows.WaitForSingleObject(h, 0); err != nil || ev != uint32(windows.WAIT_TIMEOUT) {
		return 0
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	return int64(created.HighDateTime)<<32 | int64(created.LowDateTime)
}
