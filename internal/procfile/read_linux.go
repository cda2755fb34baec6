//go:build linux

package procfile

import "golang.org/x/sys/unix"

// SeqRecordsFit: a read of a many-record seq_file that returned no more
// than this got every record. Such a file fills a read until its buffer,
// at least a page (4 KiB), cannot take the next record, and no record read
// that way (a pid and a space, as in children) is longer than 32 bytes.
const SeqRecordsFit = 4096 - 32

// ReadAll reads the whole of an open /proc file from offset 0 into the
// capacity of *buf (4 KiB when it has none), growing it up to max bytes,
// and returns the filled part, valid until the next use of *buf. It reads
// with pread, so a descriptor kept open between calls needs no seek.
//
// seq says the file is a seq_file (stat, status, syscall, children; not
// cmdline): a read at offset 0 makes the kernel generate the contents
// afresh, and one read hands out all of it that fits. So a read that
// leaves room in the buffer got everything, and the read that would return
// 0 is spared. multi marks a seq_file of many records (children), only
// known complete by that test when the read was short of SeqRecordsFit,
// which holds for records of at most 32 bytes: a seq_file of longer
// records (maps) and any other file (cmdline, environ) need seq false, read
// until a read returns 0.
//
// Errors are the raw errnos (ENOENT, ESRCH for a task that has gone).
func ReadAll(fd int, buf *[]byte, max int, seq, multi bool) ([]byte, error) {
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
			return nil, err
		}
		if m == 0 {
			break
		}
		n += m
		if seq && n < len(b) && (!multi || n <= SeqRecordsFit) {
			break
		}
	}
	return b[:n], nil
}
