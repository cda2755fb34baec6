//go:build linux

package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{`/sys/fs/cgroup`: "/sys/fs/cgroup", `/mnt/a\040b`: "/mnt/a b", `/x\134y`: `/x\y`} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeyedAndSingle(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, "memory.events")
	if err := os.WriteFile(ev, []byte("low 0\nhigh 3\nmax 7\noom 2\noom_kill 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, err := keyed(ev, "oom_kill"); err != nil || v != 2 {
		t.Fatalf("oom_kill = %d, %v", v, err)
	}
	if _, err := keyed(ev, "oom_group_kill"); err == nil {
		t.Fatal("missing key read as a value")
	}
	cur := filepath.Join(dir, "memory.current")
	_ = os.WriteFile(cur, []byte("123456\n"), 0o600)
	if v := single(cur); v != 123456 {
		t.Fatalf("single = %d", v)
	}
	_ = os.WriteFile(cur, []byte("max\n"), 0o600)
	if v := single(cur); v != -1 {
		t.Fatalf("single(max) = %d", v)
	}
	if v := single(filepath.Join(dir, "absent")); v != -1 {
		t.Fatalf("single(absent) = %d", v)
	}
}

// TestGone_RemovedOrInRmdir: a group removed (ENOENT) or being removed
// while its file was open (ENODEV, seen at scale when a session's exit
// path removed its emptied group during terminate) is gone, which Kill,
// Populated and Signal take as "nothing left"; any other error is not.
func TestGone_RemovedOrInRmdir(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&os.PathError{Op: "open", Path: "cgroup.kill", Err: unix.ENOENT}, true},
		{&os.PathError{Op: "write", Path: "cgroup.kill", Err: unix.ENODEV}, true},
		{fmt.Errorf("read cgroup.events: %w", unix.ENODEV), true},
		{&os.PathError{Op: "write", Path: "cgroup.kill", Err: unix.EACCES}, false},
		{&os.PathError{Op: "write", Path: "cgroup.kill", Err: unix.EBUSY}, false},
		{nil, false},
	} {
		if got := gone(tc.err); got != tc.want {
			t.Errorf("gone(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
