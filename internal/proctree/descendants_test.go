//go:build linux

package proctree

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
)

func TestDescendantsRefusesSelfAndInit(t *testing.T) {
	for _, root := range []int{os.Getpid(), os.Getppid(), 1, -1} {
		if _, err := Descendants(root, ""); !errors.Is(err, ErrBadRoot) {
			t.Errorf("Descendants(%d) err = %v, want ErrBadRoot", root, err)
		}
		if n, err := Terminate(context.Background(), root, "", 0); n != 0 || !errors.Is(err, ErrBadRoot) {
			t.Errorf("Terminate(%d) = %d, %v, want 0, ErrBadRoot", root, n, err)
		}
	}
}

// A marker that matched everything must still never yield agentty itself, an
// ancestor, or init.
func TestCollectNeverReturnsProtected(t *testing.T) {
	prot := protectSelf()
	procs, err := collect(nil, func([]byte) bool { return true }, prot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if p.PID == os.Getpid() || p.PID == os.Getppid() || p.PID == 1 {
			t.Fatalf("collect returned protected pid %d (%s)", p.PID, p.Comm)
		}
	}
	if !prot.pids[os.Getppid()] {
		t.Fatalf("parent %d not protected", os.Getppid())
	}
}

func TestDescendantsTree(t *testing.T) {
	c := startMarked(t, "sleep 1000 & setsid sleep 1000 & wait")
	procs := waitTree(t, c.pid(), c.entry, "sh", "sleep", "sleep")
	if procs[0].PID != c.pid() || procs[0].PGID != c.pid() {
		t.Fatalf("first proc = %+v, want root %d leading its group", procs[0], c.pid())
	}
	setsids := 0
	for _, p := range procs[1:] {
		if p.PPID != c.pid() {
			t.Errorf("%+v: parent is not the root", p)
		}
		if p.SID == p.PID {
			setsids++
		}
	}
	if setsids != 1 {
		t.Fatalf("%d session leaders among children, want 1: %+v", setsids, procs)
	}
	// The tree walk alone finds the same processes.
	noMarker, err := Descendants(c.pid(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(commsOf(noMarker), []string{"sh", "sleep", "sleep"}) {
		t.Fatalf("without marker: %+v", noMarker)
	}
}

func TestDescendantsFindsReparentedDaemon(t *testing.T) {
	c := startMarked(t, "(setsid sleep 1000 &) ; sleep 1000")
	procs := waitTree(t, c.pid(), c.entry, "sh", "sleep", "sleep")
	daemon := findDaemon(t, procs)
	// Its parent (the subshell) is gone, so only the marker finds it.
	noMarker, err := Descendants(c.pid(), "")
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(noMarker, func(p Proc) bool { return p.PID == daemon.PID }) {
		t.Fatalf("daemon %d found without marker: %+v", daemon.PID, noMarker)
	}
	// root 0: marker only.
	byMarker, err := Descendants(0, c.entry)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(commsOf(byMarker), []string{"sh", "sleep", "sleep"}) {
		t.Fatalf("marker only: %+v", byMarker)
	}
}

// findDaemon returns the setsid sleep whose parent is outside the tree.
func findDaemon(t *testing.T, procs []Proc) Proc {
	t.Helper()
	for _, p := range procs {
		inTree := slices.ContainsFunc(procs, func(q Proc) bool { return q.PID == p.PPID })
		if p.SID == p.PID && !inTree {
			return p
		}
	}
	t.Fatalf("no reparented session leader in %+v", procs)
	return Proc{}
}

// A root is walked only if it is our child or carries the marker, so a
// recycled pid cannot drag an unrelated tree into a session.
func TestDescendantsRootTrust(t *testing.T) {
	// The root scrubs its own marker by exec; it is still our child.
	scrubbed := startMarked(t, "exec env -u "+EnvKey+" sleep 1000")
	waitTree(t, scrubbed.pid(), scrubbed.entry, "sleep")

	// An unmarked grandchild stands in for an unrelated process holding a
	// recycled pid: not our child, no marker.
	c := startMarked(t, "env -u "+EnvKey+" sleep 1000 & wait")
	procs := waitTree(t, c.pid(), c.entry, "sh", "sleep")
	stranger := procs[1].PID
	tests := []struct {
		marker string
		want   []string
	}{
		{marker: "", want: []string{"sleep"}},
		{marker: EnvKey + "=other/s1", want: []string{}},
		{marker: c.entry, want: []string{"sh", "sleep"}}, // found through its marked parent
	}
	for _, tt := range tests {
		got, err := Descendants(stranger, tt.marker)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(commsOf(got), tt.want) {
			t.Errorf("Descendants(stranger, %q) = %+v, want %v", tt.marker, got, tt.want)
		}
	}
}
