//go:build linux

package proctree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

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

// parseStat parses /proc/PID/stat. comm is delimited by the first '(' and
// the last ')' because it may itself contain spaces and parentheses.
func parseStat(pid int, b []byte) (procStat, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open || end+2 >= len(b) {
		return procStat{}, fmt.Errorf("%w: pid %d", errBadStat, pid)
	}
	// fields[i] is stat field i+3 (man 5 proc numbers fields from 1).
	fields := bytes.Fields(b[end+2:])
	if len(fields) < 20 || len(fields[0]) == 0 {
		return procStat{}, fmt.Errorf("%w: pid %d", errBadStat, pid)
	}
	var s procStat
	s.PID = pid
	s.Comm = string(b[open+1 : end])
	s.State = fields[0][0]
	var errs [4]error
	s.PPID, errs[0] = strconv.Atoi(string(fields[1]))
	s.PGID, errs[1] = strconv.Atoi(string(fields[2]))
	s.SID, errs[2] = strconv.Atoi(string(fields[3]))
	s.StartTime, errs[3] = strconv.ParseUint(string(fields[19]), 10, 64)
	if err := errors.Join(errs[:]...); err != nil {
		return procStat{}, fmt.Errorf("%w: pid %d: %w", errBadStat, pid, err)
	}
	return s, nil
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
		return err == nil && mask&(1<<(uint(sig)-1)) != 0
	}
	return false
}
