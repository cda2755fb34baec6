package store

import (
	"bytes"
	"os"
	"strconv"
)

// procStart returns a process's start time in clock ticks since boot (field
// 22 of /proc/PID/stat), or 0 if it does not exist or has exited. With the
// pid it names one process even after the pid is reused. A zombie keeps its
// stat, start time included, until its parent reaps it, which a stopped or
// careless parent may never do: it has ended all the same.
func procStart(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name may hold spaces and parentheses; fields resume
	// after the last ')'. Field 3 (state) is the first after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return 0
	}
	if st := f[0]; len(st) == 1 && (st[0] == 'Z' || st[0] == 'X') {
		return 0
	}
	n, err := strconv.ParseInt(string(f[19]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
