//go:build linux

package procfile

import "strconv"

// Path builds "/proc/PID[/task/TID][/leaf][/N]\x00" into b (reusing its
// storage) for the raw open and stat syscalls, which take a NUL-terminated
// path; os.Open and unix.Open(string) would copy the path on every call.
// tid and n are left out when negative, leaf when empty.
func Path(b []byte, pid, tid int, leaf string, n int) []byte {
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
