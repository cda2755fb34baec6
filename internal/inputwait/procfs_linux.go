//go:build linux && (amd64 || arm64)

package inputwait

import (
	"errors"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
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
	for {
		r, _, e := syscall.Syscall6(unix.SYS_OPENAT, uintptr(atFDCWD),
			uintptr(unsafe.Pointer(&path[0])), uintptr(flags|unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return -1, goneErr(e)
		}
		return int(r), nil
	}
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

// seqRecordsFit: a read of a many-record seq_file that returned no more
// than this got every record. Such a file fills a read until its buffer,
// at least a page (4 KiB), cannot take the next record, and no record read
// that way (a pid and a space) is longer than 32 bytes.
const seqRecordsFit = 4096 - 32

// readFd reads the whole of an open /proc file into *buf from offset 0,
// growing it up to max bytes, and returns the filled part. The files read
// this way are seq_files: a read at offset 0 makes the kernel generate the
// contents afresh, and one read hands out all of it that fits. So a read
// that leaves room in the buffer got everything, and the read that would
// return 0 is spared; a file of many records (multi) is only known complete
// by that test when the read was short of seqRecordsFit.
func readFd(fd int, buf *[]byte, max int, multi bool) ([]byte, error) {
	b := (*buf)[:cap(*buf)]
	if len(b) == 0 {
		b = make([]byte, 4096)
		*buf = b[:0]
	}
	n := 0
	for {
		if n == len(b) {
			if len(b) >= max {
				break
			}
			nb := make([]byte, 2*len(b))
			copy(nb, b[:n])
			b = nb
			*buf = nb[:0]
		}
		m, err := unix.Pread(fd, b[n:], int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, goneErr(err)
		}
		if m == 0 {
			break
		}
		n += m
		if n < len(b) && (!multi || n <= seqRecordsFit) {
			break
		}
	}
	return b[:n], nil
}

// procPath builds "/proc/PID[/task/TID]/leaf[/N]\x00" into b. tid and n are
// omitted when negative.
func procPath(b []byte, pid, tid int, leaf string, n int) []byte {
	b = append(b[:0], "/proc/"...)
	b = strconv.AppendInt(b, int64(pid), 10)
	if tid >= 0 {
		b = append(b, "/task/"...)
		b = strconv.AppendInt(b, int64(tid), 10)
	}
	if leaf != "" {
		b = append(b, '/')
		b = append(b, leaf...)
	}
	if n >= 0 {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, 0)
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
// current position on. It reads until getdents returns 0: a short batch
// does not mean the end (the kernel also stops a batch for a signal).
func readDirFd(fd int, dents []byte, out []int) ([]int, error) {
	for {
		n, err := unix.Getdents(fd, dents)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, goneErr(err)
		}
		if n <= 0 {
			return out, nil
		}
		// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
		for off := 0; off+19 < n; {
			reclen := int(*(*uint16)(unsafe.Pointer(&dents[off+16])))
			if reclen == 0 || off+reclen > n {
				break
			}
			if v, ok := atoiZ(dents[off+19 : off+reclen]); ok {
				out = append(out, v)
			}
			off += reclen
		}
	}
}

// atoiZ parses a NUL-terminated (or unterminated) decimal name; ok is false
// for anything that is not a plain non-negative number.
func atoiZ(b []byte) (int, bool) {
	v, digits := 0, 0
	for _, c := range b {
		if c == 0 {
			break
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
		digits++
	}
	return v, digits > 0
}

// statInfo is the part of /proc/PID/task/TID/stat the decision uses.
type statInfo struct {
	state   byte
	ppid    int
	pgrp    int
	session int
	ttyNr   uint64
	threads int // num_threads of the whole process; 0 if not read
	comm    [16]byte
	commLen int
}

func (s *statInfo) name() string { return string(s.comm[:s.commLen]) }

// parseStat decodes a stat line. comm may contain spaces and parentheses,
// so the fields are counted from the last ')'.
func parseStat(b []byte, s *statInfo) bool {
	open, close := -1, -1
	for i, c := range b {
		if c == '(' && open < 0 {
			open = i
		}
		if c == ')' {
			close = i
		}
	}
	if open < 0 || close < open || close+2 >= len(b) {
		return false
	}
	s.commLen = copy(s.comm[:], b[open+1:close])
	rest := b[close+2:]
	s.state = rest[0]
	// Fields after state: ppid pgrp session tty_nr, then twelve more up to
	// num_threads (optional here: only a hint for listing threads).
	var f [17]int64
	i := 1
	for k := range f {
		for i < len(rest) && rest[i] == ' ' {
			i++
		}
		neg := false
		if i < len(rest) && rest[i] == '-' {
			neg = true
			i++
		}
		var v int64
		start := i
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			v = v*10 + int64(rest[i]-'0')
			i++
		}
		if i == start {
			if k < 4 {
				return false
			}
			break
		}
		if neg {
			v = -v
		}
		f[k] = v
	}
	s.ppid, s.pgrp, s.session, s.ttyNr = int(f[0]), int(f[1]), int(f[2]), uint64(uint32(f[3]))
	s.threads = int(f[16])
	return true
}

// nextField returns the next space/newline separated token of b from *i.
func nextField(b []byte, i *int) []byte {
	for *i < len(b) && (b[*i] == ' ' || b[*i] == '\n' || b[*i] == '\t') {
		*i++
	}
	start := *i
	for *i < len(b) && b[*i] != ' ' && b[*i] != '\n' && b[*i] != '\t' {
		*i++
	}
	return b[start:*i]
}

// parseUint parses decimal, or hex with a 0x prefix.
func parseUint(tok []byte) (uint64, bool) {
	if len(tok) > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X') {
		return parseBase(tok[2:], 16)
	}
	return parseBase(tok, 10)
}

// parseBase parses an unsigned number in base 10 or 16 without prefix.
func parseBase(tok []byte, base uint64) (uint64, bool) {
	if len(tok) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range tok {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

// sysState is a decoded /proc/PID/task/TID/syscall.
type sysState struct {
	running bool      // the task was on a CPU
	nr      int       // -1: blocked, but not inside a syscall
	args    [6]uint64 // syscall arguments
}

// parseSyscall decodes "running", "-1 SP PC" or "NR A1 .. A6 SP PC".
func parseSyscall(b []byte, s *sysState) bool {
	i := 0
	tok := nextField(b, &i)
	if string(tok) == "running" {
		s.running = true
		return true
	}
	s.running = false
	if len(tok) > 0 && tok[0] == '-' {
		s.nr = -1
		return true
	}
	nr, ok := parseUint(tok)
	if !ok {
		return false
	}
	s.nr = int(nr)
	for k := range s.args {
		v, ok := parseUint(nextField(b, &i))
		if !ok {
			return false
		}
		s.args[k] = v
	}
	return true
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

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func hasPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == p
}
