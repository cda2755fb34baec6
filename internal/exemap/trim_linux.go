//go:build linux

package exemap

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Trimmed says what Trim did.
type Trimmed struct {
	Mappings int   // read-only mappings of the executable dropped
	Bytes    int64 // their size
}

// Trim drops the executable's read-only, unwritten mappings from this
// process (see the package comment). It is safe at any time: the dropped
// pages come back from the page cache when next touched.
func Trim() (Trimmed, error) {
	var t Trimmed
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return t, fmt.Errorf("exemap: %w", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return t, err
	}
	for _, m := range trimmable(parse(smaps), st.Ino) {
		n := m.end - m.start
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, m.start, n, unix.MADV_NOHUGEPAGE); e != 0 {
			return t, fmt.Errorf("exemap: madvise(NOHUGEPAGE) %x-%x: %w", m.start, m.end, e)
		}
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, m.start, n, unix.MADV_DONTNEED); e != 0 {
			return t, fmt.Errorf("exemap: madvise(DONTNEED) %x-%x: %w", m.start, m.end, e)
		}
		t.Mappings++
		t.Bytes += int64(n)
	}
	return t, nil
}

// trimmable keeps the mappings of the file with inode ino that are not
// writable and hold no anonymous (copied-on-write) pages: dropping those
// loses nothing the file does not have.
func trimmable(ms []mapping, ino uint64) []mapping {
	var keep []mapping
	for _, m := range ms {
		if m.inode == ino && !strings.Contains(m.perms, "w") && m.anonKiB == 0 {
			keep = append(keep, m)
		}
	}
	return keep
}

// mapping is one entry of /proc/self/smaps, with the fields Trim needs.
type mapping struct {
	start, end uintptr
	perms      string
	inode      uint64
	anonKiB    int64
}

// parse reads /proc/PID/smaps: a header line per mapping
// ("start-end perms offset dev inode path"), then "Key: value kB" lines.
func parse(b []byte) []mapping {
	var ms []mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if key, ok := strings.CutSuffix(f[0], ":"); ok {
			if len(ms) == 0 || len(f) < 2 {
				continue
			}
			v, _ := strconv.ParseInt(f[1], 10, 64)
			if key == "Anonymous" {
				ms[len(ms)-1].anonKiB = v
			}
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok || len(f) < 5 {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		inode, err3 := strconv.ParseUint(f[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		ms = append(ms, mapping{start: uintptr(start), end: uintptr(end), perms: f[1], inode: inode})
	}
	return ms
}
