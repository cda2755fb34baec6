//go:build linux

package proctree

import (
	"os"
	"time"
)

// A process in the middle of execve has its new memory map but not yet
// its new stack: /proc/PID/environ and cmdline read empty for that moment,
// so a marker search that reads it then misses a process that carries the
// marker. Caught between a setsid and its exec, a session's leftover would
// be in no group of the session's and have init for a parent: invisible to
// every other search. Such processes are read again until their exec is
// done.

// execSettle bounds how long one search waits for processes to finish an
// exec; an exec takes microseconds, or a few milliseconds on a loaded
// machine.
const execSettle = 50 * time.Millisecond

// envMatch is what one read of a process's environment tells a marker
// search.
type envMatch int

const (
	unmarked envMatch = iota
	marked
	execing // between the two halves of an exec: read it again
)

// markedOrExec reads pid's environment once, and its command line when
// the environment is empty: none either is an exec under way, unless the
// process is a kernel thread (kthreadd, pid 2, and its children) or a
// zombie; a command line means the exec finished meanwhile (or the
// environment is empty, as env -i leaves it), so the environment is read
// once more.
func markedOrExec(pid int, r *envReader, match func([]byte) bool) envMatch {
	env := r.read(pid)
	if len(env) > 0 {
		return matchOf(env, match)
	}
	if env == nil {
		return unmarked // gone, or not ours to read
	}
	cmd, err := os.ReadFile(procPath(pid, "cmdline"))
	switch {
	case err != nil:
		return unmarked
	case len(cmd) > 0:
		return matchOf(r.read(pid), match)
	}
	if st, err := readStat(pid); err != nil || st.dead() || pid == 2 || st.PPID == 2 {
		return unmarked
	}
	return execing
}

func matchOf(env []byte, match func([]byte) bool) envMatch {
	if len(env) > 0 && match(env) {
		return marked
	}
	return unmarked
}

// settleExec reads each pid found in an exec again, until its exec is done
// or execSettle passes, and returns those that carry the marker.
func settleExec(pids []int, r *envReader, match func([]byte) bool) []int {
	var found []int
	deadline := time.Now().Add(execSettle)
	for len(pids) > 0 && time.Now().Before(deadline) {
		pause(time.Millisecond)
		left := pids[:0]
		for _, pid := range pids {
			switch markedOrExec(pid, r, match) {
			case marked:
				found = append(found, pid)
			case execing:
				left = append(left, pid)
			}
		}
		pids = left
	}
	return found
}
