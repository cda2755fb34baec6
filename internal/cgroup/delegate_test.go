//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDelegated_OwnershipOfDirAndFiles: a group counts as delegated only
// when the directory and its cgroup.procs, cgroup.subtree_control and
// cgroup.threads are this process's (the files Delegate=yes chowns).
func TestDelegated_OwnershipOfDirAndFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: chowns files to another uid")
	}
	for _, tc := range []struct {
		name, foreign string // the path (relative) owned by another uid, "" for none
	}{
		{"all ours", ""},
		{"directory", "."},
		{"procs", "cgroup.procs"},
		{"subtree_control", "cgroup.subtree_control"},
		{"threads", "cgroup.threads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir() // stands in for a cgroup: only ownership is read
			for _, f := range delegationFiles {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.foreign != "" {
				if err := os.Chown(filepath.Join(dir, tc.foreign), 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			err := delegated(dir)
			if tc.foreign == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "belongs to uid 4242, not 0") {
				t.Fatalf("err %v, want it to name the foreign owner", err)
			}
		})
	}
}

func TestPpid_ParsesStat(t *testing.T) {
	if got := ppid(os.Getpid()); got != os.Getppid() {
		t.Fatalf("ppid(self) = %d, want %d", got, os.Getppid())
	}
	if got := ppid(-1); got != 0 {
		t.Fatalf("ppid of no process = %d, want 0", got)
	}
}

// TestFind_WhereverAgenttyMoved: the guard finds agentty's parent group
// below its own group, beside it (both in the leaf) or anywhere in the
// mount (agentty moved into a systemd scope and the guard did not).
func TestFind_WhereverAgenttyMoved(t *testing.T) {
	own, err := Self()
	if err != nil {
		t.Fatalf("this test runs on a cgroup2 mount: %v", err)
	}
	base := filepath.Join(own, "agentty-findtest-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(base, 0o755); err != nil {
		t.Skipf("cannot create cgroups here (needs root or a delegated group): %v", err)
	}
	defer os.Remove(base)
	deep := filepath.Join(base, "app.slice", "x.scope")
	for _, d := range []string{filepath.Dir(deep), deep} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(d)
	}
	name := ParentName("findtest" + strconv.Itoa(os.Getpid()))
	if got, err := find(name); got != "" || err != nil {
		t.Fatalf("find with no such group = %q, %v", got, err)
	}
	for _, dir := range []string{filepath.Join(own, name), filepath.Join(deep, name)} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := find(name)
		os.Remove(dir)
		if got != dir || err != nil {
			t.Fatalf("find = %q, %v; want %s", got, err, dir)
		}
	}
}
