//go:build darwin

package proctree

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// sZomb is p_stat of a process that has exited and waits to be reaped
// (XNU bsd/sys/proc.h SZOMB); x/sys does not name it.
const sZomb = 5

// procOf converts one kinfo_proc. The start time is p_starttime in
// microseconds since the epoch: with the pid it names one process.
func procOf(k *unix.KinfoProc) (Proc, bool) {
	p := Proc{PID: int(k.Proc.P_pid), PPID: int(k.Eproc.Ppid), PGID: int(k.Eproc.Pgid),
		StartTime: uint64(k.Proc.P_starttime.Sec)*1e6 + uint64(k.Proc.P_starttime.Usec),
		Comm:      unix.ByteSliceToString(k.Proc.P_comm[:])}
	return p, k.Proc.P_stat != sZomb && p.PID > 0
}

// listProcs lists every live (non-zombie) process in one sysctl
// (kern.proc.all), the way ps does.
func listProcs() ([]Proc, error) {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("proctree: sysctl kern.proc.all: %w", err)
	}
	out := make([]Proc, 0, len(ks))
	for i := range ks {
		if p, ok := procOf(&ks[i]); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// procInfo reads one process (kern.proc.pid); false if it is gone or a
// zombie.
func procInfo(pid int) (Proc, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k == nil || int(k.Proc.P_pid) != pid {
		return Proc{}, false
	}
	return procOf(k)
}

// procStart returns pid's start time, or false if it is gone or a zombie.
func procStart(pid int) (uint64, bool) {
	p, ok := procInfo(pid)
	return p.StartTime, ok
}

// procEnviron returns pid's initial environment, NUL-separated, from
// kern.procargs2; nil for a process this user may not read, or gone.
func procEnviron(pid int) []byte {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil
	}
	return procArgsEnv(b)
}
