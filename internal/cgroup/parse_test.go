//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"testing"
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
