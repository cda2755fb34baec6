//go:build linux

package proctree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/agentty/agentty/internal/procfile"
	"golang.org/x/sys/unix"
)

var errBadStat = errors.New("proctree: malformed /proc stat")

// procStat is a Proc plus its run state, which callers never see because
// only live processes are returned; internally zombies must be told apart.
type procStat struct {
	Proc
	State byte
}

// dead reports whether the process has exited and only its pid slot remains.
func (p procStat) dead() bool { return p.State == 'Z' || p.State == 'X' || p.State == 'x' }

// Running reports whether pid names a process that has not exited: a
// zombie, exited but not yet reaped, is not running.
func Running(pid int) bool {
	st, err := readStat(pid)
	return err == nil && !st.dead()
}

func procPath(pid int, file string) string {
	return "/proc/" + strconv.Itoa(pid) + "/" + file
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(procPath(pid, "stat"))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(pid, b)
}

// parseStat parses /proc/PID/stat through procfile.ParseStat; the line
// must reach starttime, which tells a pid's processes apart.
func parseStat(pid int, b []byte) (procStat, error) {
	var st procfile.Stat
	if !procfile.ParseStat(b, &st) || st.Fields < 19 {
		return procStat{}, fmt.Errorf("%w: pid %d", errBadStat, pid)
	}
	return procStat{Proc: Proc{PID: pid, PPID: st.PPid, PGID: st.PGrp, SID: st.Session, StartTime: st.StartTime,
		Comm: string(st.Comm)}, State: st.State}, nil
}

// listPIDs returns every process id currently visible in /proc.
func listPIDs() ([]int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("proctree: list /proc: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("proctree: list /proc: %w", err)
	}
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if n == "" || n[0] < '0' || n[0] > '9' {
			continue
		}
		if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// ignores reports whether pid has sig's disposition set to ignore
// (SigIgn in /proc/PID/status, a hex mask with bit sig-1 per signal).
func ignores(pid int, sig unix.Signal) bool {
	b, err := os.ReadFile(procPath(pid, "status"))
	if err != nil {
		return false
	}
	for line := range bytes.Lines(b) {
		v, ok := bytes.CutPrefix(line, []byte("SigIgn:"))
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 16, 64)
		return err == nil && sigInMask(mask, sig)
	}
	return false
}
