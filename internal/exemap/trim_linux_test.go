//go:build linux

package exemap

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParse_Trimmable(t *testing.T) {
	smaps := []byte(`00400000-00402000 r--p 00000000 fe:00 77 /bin/x
Rss:                   8 kB
Anonymous:             0 kB
00402000-01317000 r-xp 00002000 fe:00 77 /bin/x
Rss:               15444 kB
Anonymous:             0 kB
01317000-0236e000 r--p 00f17000 fe:00 77 /bin/x
Rss:               16220 kB
Anonymous:            12 kB
0236e000-0236f000 rw-p 01f6d000 fe:00 77 /bin/x
Anonymous:             4 kB
0236f000-02370000 r--p 00000000 fe:00 78 /lib/libc.so
Anonymous:             0 kB
7f0000000000-7f0000001000 rw-p 00000000 00:00 0
Anonymous:             4 kB
`)
	ms, err := parse(bytes.NewReader(smaps), 77)
	if err != nil {
		t.Fatal(err)
	}
	wantAll := []mapping{
		{start: 0x400000, end: 0x402000},
		{start: 0x402000, end: 0x1317000},
		{start: 0x1317000, end: 0x236e000, anonKiB: 12},
		{start: 0x236e000, end: 0x236f000, writable: true, anonKiB: 4},
	}
	if !slices.Equal(ms, wantAll) {
		t.Fatalf("parsed %+v, want %+v (the four mappings of inode 77)", ms, wantAll)
	}
	got := trimmable(ms)
	want := wantAll[:2]
	if !slices.Equal(got, want) {
		t.Fatalf("trimmable %+v, want %+v (not the written, the copied-on-write or another file's)", got, want)
	}
}

// exeRSS is the resident KiB of this test binary's mappings.
func exeRSS(t *testing.T) int64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var kib int64
	exe := false
	for _, line := range strings.Split(string(smaps), "\n") {
		if _, inode, ok := header([]byte(line)); ok {
			exe = inode == st.Ino
			continue
		}
		var v int64
		if exe && strings.HasPrefix(line, "Rss:") {
			if _, err := fmt.Sscanf(line, "Rss: %d kB", &v); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			kib += v
		}
	}
	return kib
}

func TestTrim_DropsTheExecutablesPages(t *testing.T) {
	before := exeRSS(t)
	tr, err := Trim()
	if err != nil {
		t.Fatal(err)
	}
	after := exeRSS(t)
	t.Logf("resident %d KiB of the executable before, %d KiB after; trimmed %+v", before, after, tr)
	if tr.Mappings == 0 || tr.Bytes == 0 {
		t.Fatalf("trimmed %+v, want the executable's read-only mappings", tr)
	}
	if after >= before {
		t.Fatalf("the executable's resident pages went from %d to %d KiB", before, after)
	}
	// The code still runs: everything dropped comes back from the file.
	if again, err := Trim(); err != nil || again.Mappings != tr.Mappings {
		t.Fatalf("second trim %+v %v, want %d mappings", again, err, tr.Mappings)
	}
}

// TestTrim_AllocatesLittle: the guard trims once armed and then idles for
// hours holding whatever heap the trim left; smaps parsed line by line into
// strings was 150-360 KB of it.
func TestTrim_AllocatesLittle(t *testing.T) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if _, err := Trim(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 16<<10 {
		t.Fatalf("Trim allocated %d bytes in %d allocations, want under 16 KiB", got, m1.Mallocs-m0.Mallocs)
	}
}
