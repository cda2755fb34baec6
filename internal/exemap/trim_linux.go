//go:build linux

package exemap

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

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
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return t, err
	}
	ms, err := parse(f, st.Ino)
	f.Close()
	if err != nil {
		return t, fmt.Errorf("exemap: %w", err)
	}
	for _, m := range trimmable(ms) {
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

// trimmable returns the read-only mappings with no copied-on-write pages.
func trimmable(ms []mapping) []mapping {
	var keep []mapping
	for _, m := range ms {
		if !m.writable && m.anonKiB == 0 {
			keep = append(keep, m)
		}
	}
	return keep
}

// mapping is one entry of /proc/self/smaps.
type mapping struct {
	start, end uintptr
	writable   bool
	anonKiB    int64 // its "Anonymous:" line: pages copied on write
}

// parse reads smaps and returns the mappings of the file with inode ino.
// It streams the file through one small buffer and allocates nothing per
// line: the guard calls it once armed and then idles for hours, and a
// smaps of a few hundred lines parsed into strings would leave it a few
// hundred KiB of heap the runtime keeps.
func parse(r io.Reader, ino uint64) ([]mapping, error) {
	var ms []mapping
	br := bufio.NewReaderSize(r, 4096)
	in := false // whether the lines read belong to a mapping of ino
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// No smaps line is this long; skip it rather than misparse.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			continue
		}
		if len(line) > 0 {
			if v, ok := bytes.CutPrefix(line, anonKey); ok {
				if in {
					ms[len(ms)-1].anonKiB = parseUint(field(v, 0))
				}
			} else if m, inode, ok := header(line); ok {
				in = inode == ino
				if in {
					ms = append(ms, m)
				}
			}
		}
		if err == io.EOF {
			return ms, nil
		}
		if err != nil {
			return ms, err
		}
	}
}

var anonKey = []byte("Anonymous:")

// header parses a mapping's first line, "start-end perms offset dev inode
// [path]"; ok is false for the "Key: value" lines.
func header(line []byte) (m mapping, inode uint64, ok bool) {
	lo, hi, found := bytes.Cut(field(line, 0), []byte("-"))
	if !found || len(field(line, 4)) == 0 {
		return m, 0, false
	}
	start, ok1 := parseHex(lo)
	end, ok2 := parseHex(hi)
	perms := field(line, 1)
	if !ok1 || !ok2 || len(perms) < 2 {
		return m, 0, false
	}
	return mapping{start: start, end: end, writable: perms[1] == 'w'}, uint64(parseUint(field(line, 4))), true
}

// field returns the i-th space-separated field of line, or nil.
func field(line []byte, i int) []byte {
	for {
		line = bytes.TrimLeft(line, " \t")
		end := bytes.IndexAny(line, " \t\n")
		if end < 0 {
			end = len(line)
		}
		if end == 0 {
			return nil
		}
		if i == 0 {
			return line[:end]
		}
		line, i = line[end:], i-1
	}
}

func parseHex(b []byte) (uintptr, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uintptr
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uintptr(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uintptr(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// parseUint reads a decimal number; anything else is -1.
func parseUint(b []byte) int64 {
	if len(b) == 0 {
		return -1
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + int64(c-'0')
	}
	return v
}
