//go:build linux && (amd64 || arm64)

package inputwait

import (
	"errors"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/procfile"
)

// The helpers below talk to /proc with raw syscalls on NUL-terminated paths
// built in reusable buffers: os.Open and unix.Open(string) allocate a path
// copy and an *os.File per call, and Inspect opens a dozen files per call.

// errGone marks a process or thread that vanished (or never existed) while
// being inspected.
var errGone = errors.New("process gone")

// goneErr folds the errnos /proc returns for a vanished task into errGone.
func goneErr(err error) error {
	if err == unix.ENOENT || err == unix.ESRCH {
		return errGone
	}
	return err
}

var atFDCWD = unix.AT_FDCWD

// openPath opens a NUL-terminated path read-only.
func openPath(path []byte, flags int) (int, error) {
	fd, err := procfile.Open(path, flags)
	if err != nil {
		return -1, goneErr(err)
	}
	return fd, nil
}

// statPath stats a NUL-terminated path, following symlinks (so
// /proc/PID/fd/N describes the open file, not the link).
func statPath(path []byte, st *unix.Stat_t) error {
	_, _, e := syscall.Syscall6(unix.SYS_NEWFSTATAT, uintptr(atFDCWD),
		uintptr(unsafe.Pointer(&path[0])), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	if e != 0 {
		return goneErr(e)
	}
	return nil
}

// readPath reads a whole NUL-terminated path into *buf, growing it up to
// max bytes, and returns the filled part. multi tells a file of many
// records (children) from one that is a single record (see readFd).
func readPath(path []byte, buf *[]byte, max int, multi bool) ([]byte, error) {
	fd, err := openPath(path, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return readFd(fd, buf, max, multi)
}

// readFd reads the whole of an open /proc seq_file (see procfile.ReadAll)
// into *buf, growing it up to max bytes; multi marks a file of many
// records (children).
func readFd(fd int, buf *[]byte, max int, multi bool) ([]byte, error) {
	b, err := procfile.ReadAll(fd, buf, max, true, multi)
	if err != nil {
		return nil, goneErr(err)
	}
	return b, nil
}

// readDirInts lists the numeric entries of a NUL-terminated directory path
// (pids in /proc, tids in /proc/PID/task), appending them to out.
func readDirInts(path []byte, dents []byte, out []int) ([]int, error) {
	fd, err := openPath(path, unix.O_DIRECTORY)
	if err != nil {
		return out, err
	}
	defer unix.Close(fd)
	return readDirFd(fd, dents, out)
}

// readDirFd lists the numeric entries of an open directory from its
// current position on (procfile.ReadDirNumbers).
func readDirFd(fd int, dents []byte, out []int) ([]int, error) {
	out, err := procfile.ReadDirNumbers(fd, dents, out)
	if err != nil {
		return out, goneErr(err)
	}
	return out, nil
}

// statInfo is the part of /proc/PID/task/TID/stat the decision uses.
type statInfo struct {
	state   byte
	ppid    int
	pgrp    int
	session int
	ttyNr   uint64
	threads int    // num_threads of the whole process; 0 if not read
	start   uint64 // start time in ticks after boot: names the process across pid reuse
	comm    procName
}

// parseStat decodes a stat line (see procfile.ParseStat).
func parseStat(b []byte, s *statInfo) bool {
	var st procfile.Stat
	if !procfile.ParseStat(b, &st) {
		return false
	}
	s.state, s.ppid, s.pgrp, s.session = st.State, st.PPid, st.PGrp, st.Session
	s.ttyNr, s.threads, s.start = uint64(st.TTYNr), st.NumThreads, st.StartTime
	s.comm.n = copy(s.comm.b[:], st.Comm)
	return true
}

// parseSyscall decodes "running" (the task was on a CPU), "-1 SP PC" or
// "NR A1 .. A6 SP PC".
func parseSyscall(b []byte, s *sysState) (running, ok bool) {
	i := 0
	tok := nextField(b, &i)
	if string(tok) == "running" {
		return true, true
	}
	if len(tok) > 0 && tok[0] == '-' {
		s.nr = -1
		return false, true
	}
	nr, ok := parseUint(tok)
	if !ok {
		return false, false
	}
	s.nr = int(nr)
	for k := range s.args {
		v, ok := parseUint(nextField(b, &i))
		if !ok {
			return false, false
		}
		s.args[k] = v
	}
	return false, true
}

// parseSchedstat returns on-CPU time (ns) and the number of times the task
// was scheduled in, from "RUNTIME WAITTIME PCOUNT".
func parseSchedstat(b []byte) (runtime, pcount uint64, ok bool) {
	i := 0
	runtime, ok1 := parseUint(nextField(b, &i))
	_ = nextField(b, &i)
	pcount, ok2 := parseUint(nextField(b, &i))
	return runtime, pcount, ok1 && ok2
}

// parseCtxtSwitches sums the context switch counters of a status file; it
// is the fallback run counter on kernels without schedstat.
func parseCtxtSwitches(b []byte) uint64 {
	var sum uint64
	for len(b) > 0 {
		line := b
		if j := indexByte(b, '\n'); j >= 0 {
			line, b = b[:j], b[j+1:]
		} else {
			b = nil
		}
		if hasPrefix(line, "voluntary_ctxt_switches:") || hasPrefix(line, "nonvoluntary_ctxt_switches:") {
			j := indexByte(line, ':')
			k := j + 1
			v, _ := parseUint(nextField(line, &k))
			sum += v
		}
	}
	return sum
}
