//go:build linux

package procfile

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func open(t *testing.T, path string) int {
	t.Helper()
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// blockedShell starts sh with three children and a 10 KiB variable in its
// environment, and returns its pid once the children are forked; it then
// sleeps in wait, so its /proc files hold still.
func blockedShell(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & sleep 60 & echo ready; wait")
	cmd.Env = append(os.Environ(), "PROCFILE_PAD="+strings.Repeat("x", 10<<10))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("sh said %q, %v; want ready", line, err)
	}
	return cmd.Process.Pid
}

// TestReadAll_MatchesReadFile: whole files, read twice through the same
// descriptor and buffer, equal what os.ReadFile reads: a seq_file of one
// record and one of many (children), each from a buffer far too small for
// it, and a plain file (environ) past the first 4 KiB buffer.
func TestReadAll_MatchesReadFile(t *testing.T) {
	pid := strconv.Itoa(blockedShell(t))
	tests := []struct {
		name       string
		path       string
		seq, multi bool
		bufCap     int // 0: ReadAll's own 4 KiB
		pids       int // children: the pids it lists
		over       int // the file is longer than this
	}{
		{"stat, grown from 16 bytes", "/proc/" + pid + "/stat", true, false, 16, 0, 16},
		{"stat", "/proc/" + pid + "/stat", true, false, 0, 0, 0},
		{"children, grown from 8 bytes", "/proc/" + pid + "/task/" + pid + "/children", true, true, 8, 3, 8},
		{"children", "/proc/" + pid + "/task/" + pid + "/children", true, true, 0, 3, 0},
		{"environ past 4 KiB, not seq", "/proc/" + pid + "/environ", false, false, 0, 0, 10 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fd := open(t, tc.path)
			buf := make([]byte, 0, tc.bufCap)
			want, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) <= tc.over || (tc.pids > 0 && len(bytes.Fields(want)) != tc.pids) {
				t.Fatalf("%s = %q: want more than %d bytes, %d pids", tc.path, want, tc.over, tc.pids)
			}
			for round := range 2 { // the second reuses buffer and descriptor
				got, err := ReadAll(fd, &buf, 1<<20, tc.seq, tc.multi)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("round %d: ReadAll got %q, os.ReadFile %q", round, got, want)
				}
			}
		})
	}
}

// TestReadAll_Max: a file longer than max is cut at max, the buffer grown
// to it by doubling. (A file of known length: /proc/self/maps is shorter
// than 2 KiB in some builds of this test.)
func TestReadAll_Max(t *testing.T) {
	want := bytes.Repeat([]byte("0123456789abcdef"), 320) // 5 KiB
	path := filepath.Join(t.TempDir(), "long")
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	fd := open(t, path)
	buf := make([]byte, 0, 1024)
	got, err := ReadAll(fd, &buf, 2048, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2048 || !bytes.Equal(got, want[:2048]) {
		t.Fatalf("ReadAll with max 2048 got %d bytes, want the first 2048 of %d", len(got), len(want))
	}
	if cap(buf) != 2048 {
		t.Errorf("buffer capacity %d after growing to max 2048", cap(buf))
	}
}

// TestReadAll_Gone: a task that has been reaped reads as ESRCH through a
// descriptor opened while it lived, an errno callers map to "gone".
func TestReadAll_Gone(t *testing.T) {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	fd := open(t, "/proc/"+strconv.Itoa(p.Pid)+"/stat")
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	if _, err := ReadAll(fd, &buf, 1<<16, true, false); err != unix.ESRCH {
		t.Fatalf("ReadAll of a reaped task's stat: %v, want ESRCH", err)
	}
}

// TestReadAll_NoAllocs: reading into a buffer that is big enough allocates
// nothing.
func TestReadAll_NoAllocs(t *testing.T) {
	fd := open(t, "/proc/self/stat")
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { ReadAll(fd, &buf, 1<<16, true, false) }); n != 0 {
		t.Errorf("ReadAll allocates %v times per call, want 0", n)
	}
}
