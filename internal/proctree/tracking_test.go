//go:build linux

package proctree

import (
	"context"
	"fmt"
	"syscall"
	"testing"
)

// orphanScript leaves, beside the shell, a sleep in its group, a sleep in
// a session of its own (marked) and, under a middle process, a sleep in a
// session of its own with an empty environment: once the middle dies, that
// one has no marker, no group and no parent of the tree.
const orphanScript = "sleep 1000 & setsid sleep 1000 & (env -i setsid sleep 1000 & exec sleep 1000) & wait"

// startOrphaning starts orphanScript, tracks it, kills the middle once the
// tracker has seen the whole tree and waits until the tracker has seen it
// gone. It returns the tracker, the tree as the tracker sees it (root first)
// and the orphan.
func startOrphaning(t *testing.T) (*child, *Tracker, Proc) {
	t.Helper()
	c := startMarked(t, orphanScript)
	tr, err := Track(c.pid())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	orphan, err := orphanTree(c.pid(), tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		k := newKiller(protectSelf())
		defer k.close()
		k.signal([]Proc{orphan}, nil, syscall.SIGKILL)
	})
	return c, tr, orphan
}

// orphanTree waits until tr has seen the whole of orphanScript's tree
// below root, kills the middle and waits until tr has seen it gone. It
// returns the orphan.
func orphanTree(root int, tr *Tracker) (Proc, error) {
	var middle, orphan Proc
	if !poll(func() bool {
		if err := tr.Rescan(); err != nil || tr.Len() != 5 {
			return false
		}
		parent := map[int]int{}
		for _, m := range tr.Members() {
			if st, err := readStat(m.PID); err == nil {
				parent[m.PID] = st.PPID
			}
		}
		for _, m := range tr.Members() {
			for _, o := range tr.Members() {
				if parent[m.PID] == root && parent[o.PID] == m.PID {
					middle, orphan = m, o
				}
			}
		}
		// Until it has run setsid and exec'd sleep, the orphan still has
		// the marker a sweep would find it by.
		st, err := readStat(orphan.PID)
		return middle.PID != 0 && err == nil && st.Comm == "sleep" && st.SID == orphan.PID
	}) {
		return Proc{}, fmt.Errorf("the tracker never saw the whole tree: %v", tr.Members())
	}
	if err := syscall.Kill(middle.PID, syscall.SIGKILL); err != nil {
		return Proc{}, err
	}
	if !poll(func() bool { return tr.Rescan() == nil && tr.Len() == 4 }) {
		return Proc{}, fmt.Errorf("the tracker never dropped the middle: %v", tr.Members())
	}
	if st, err := readStat(orphan.PID); err != nil || st.PPID == middle.PID {
		return Proc{}, fmt.Errorf("orphan %d: %+v %v, want it reparented", orphan.PID, st, err)
	}
	return orphan, nil
}

func TestTerminateTracked_EndsOrphans(t *testing.T) {
	for _, tracked := range []bool{true, false} {
		t.Run(fmt.Sprintf("tracked=%v", tracked), func(t *testing.T) {
			c, tr, orphan := startOrphaning(t)
			members := tr.Members()
			var n int
			var err error
			if tracked {
				n, err = TerminateTracked(context.Background(), tr, c.pid(), c.entry, 0)
			} else {
				n, err = Terminate(context.Background(), c.pid(), c.entry, 0)
			}
			if err != nil {
				t.Fatal(err)
			}
			if sig := termSignal(c.wait()); sig != syscall.SIGKILL {
				t.Errorf("root ended by %v, want SIGKILL", sig)
			}
			if !tracked {
				// Without the tracker nothing leads to it: this is what the
				// tracker is for.
				if !alive(orphan) {
					t.Fatalf("the orphan %d died without a tracker", orphan.PID)
				}
				return
			}
			if n != len(members) {
				t.Errorf("signalled %d processes, want the %d tracked", n, len(members))
			}
			for _, m := range members {
				if alive(m) {
					t.Errorf("tracked process %d outlived TerminateTracked", m.PID)
				}
			}
		})
	}
}

// TestTracker_RescanVersusExit races the scans (the shared loop's and
// Rescan) against a tree whose processes exit, 50 times: the tracker ends
// with the root alone, then with nothing once the root is gone.
func TestTracker_RescanVersusExit(t *testing.T) {
	for i := range 50 {
		c := startMarked(t, "for i in 1 2 3; do sh -c 'exit 0' & done; wait; exec sleep 1000")
		tr, err := Track(c.pid())
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		waitFor(t, "the children to exit", func() bool { return tr.Rescan() == nil && tr.Len() == 1 })
		if _, err := Terminate(context.Background(), c.pid(), c.entry, 0); err != nil {
			t.Fatal(err)
		}
		c.wait()
		if err := tr.Rescan(); err != nil || tr.Len() != 0 {
			t.Fatalf("round %d: after the root was reaped the tracker holds %v (%v)", i, tr.Members(), err)
		}
		tr.Close()
		tr.Close()
	}
}
