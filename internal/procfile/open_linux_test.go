//go:build linux

package procfile

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

func TestAtoi_Names(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"1234\x00\x00", 1234, true},
		{"7", 7, true},
		{"0", 0, true},
		{".\x00", 0, false},
		{"..\x00", 0, false},
		{"12a\x00", 0, false},
		{"-3", 0, false},
		{"\x00", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		if v, ok := Atoi([]byte(tc.in)); v != tc.want || ok != tc.ok {
			t.Errorf("Atoi(%q) = %d, %v; want %d, %v", tc.in, v, ok, tc.want, tc.ok)
		}
	}
}

// TestReadDirNumbers_MatchesReadDir lists /proc/self/task (this process's
// threads) and /proc (every pid) through a scratch buffer too small for one
// batch, and compares with os.ReadDir's numeric names.
func TestReadDirNumbers_MatchesReadDir(t *testing.T) {
	for _, dir := range []string{"/proc/self/task", "/proc"} {
		t.Run(dir, func(t *testing.T) {
			fd, err := Open(append([]byte(dir), 0), unix.O_DIRECTORY)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			got, err := ReadDirNumbers(fd, make([]byte, 64), []int{-1})
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != -1 {
				t.Fatalf("ReadDirNumbers did not append: %v", got)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			for _, e := range ents {
				if v, err := strconv.Atoi(e.Name()); err == nil {
					want = append(want, v)
				}
			}
			got = got[1:]
			slices.Sort(got)
			slices.Sort(want)
			// /proc changes between the two listings (processes come and
			// go); this process's own entry and its threads' stay.
			if dir == "/proc/self/task" && !slices.Equal(got, want) {
				t.Fatalf("threads %v, want %v", got, want)
			}
			if !slices.Contains(got, os.Getpid()) && dir == "/proc" {
				t.Fatalf("pids %v lack this process %d", got, os.Getpid())
			}
			if len(got) == 0 {
				t.Fatal("nothing listed")
			}
		})
	}
}

func TestOpen_Errors(t *testing.T) {
	if _, err := Open([]byte("/proc/self/no-such-file\x00"), 0); !errors.Is(err, unix.ENOENT) {
		t.Fatalf("open of a missing file: %v, want ENOENT", err)
	}
	if _, err := Open([]byte("/proc/self/stat\x00"), unix.O_DIRECTORY); !errors.Is(err, unix.ENOTDIR) {
		t.Fatalf("O_DIRECTORY on a file: %v, want ENOTDIR", err)
	}
}
