//go:build linux

package procfile

import "testing"

func TestPath_Forms(t *testing.T) {
	tests := []struct {
		pid, tid int
		leaf     string
		n        int
		want     string
	}{
		{12, -1, "stat", -1, "/proc/12/stat\x00"},
		{12, 13, "syscall", -1, "/proc/12/task/13/syscall\x00"},
		{12, -1, "fd", 0, "/proc/12/fd/0\x00"},
		{12, 13, "", -1, "/proc/12/task/13\x00"},
		{1, 0, "children", -1, "/proc/1/task/0/children\x00"},
	}
	buf := make([]byte, 0, 8) // too small: Path grows it
	for _, tc := range tests {
		buf = Path(buf, tc.pid, tc.tid, tc.leaf, tc.n)
		if string(buf) != tc.want {
			t.Errorf("Path(%d, %d, %q, %d) = %q, want %q", tc.pid, tc.tid, tc.leaf, tc.n, buf, tc.want)
		}
	}
}
