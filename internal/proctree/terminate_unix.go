//go:build linux || darwin

package proctree

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Terminate ends the tree under root (see Descendants for what belongs to
// it). It sends SIGTERM, then SIGCONT for stopped ones, to every process
// group found — root's and each descendant's, never agentty's own or its
// ancestors' — and to every descendant; a root that ignores SIGTERM, as an
// interactive shell does, gets the hang-up its terminal would send on
// closing (SIGHUP, SIGCONT). It waits up to grace for them to exit, then
// re-scans (new children may have appeared) and SIGKILLs whatever is left,
// repeating until nothing is left or killWait passes. grace 0 means SIGKILL
// at once; cancelling ctx cuts the grace wait short (then SIGKILL).
//
// It returns the number of distinct processes signalled, and ErrSurvivors if
// some outlived the SIGKILL wait. Calling it on a dead tree is a no-op.
func Terminate(ctx context.Context, root int, marker string, grace time.Duration) (int, error) {
	return TerminateUnder(ctx, os.Getpid(), root, marker, grace)
}

// TerminateUnder is Terminate for a root that is parent's child (a
// session's keeper's) rather than this process's: the root is trusted, as
// a child of ours is, while parent is its parent.
func TerminateUnder(ctx context.Context, parent, root int, marker string, grace time.Duration) (int, error) {
	return terminate(ctx, parent, root, marker, grace, nil)
}

// TerminateTracked is Terminate for a tree that tr follows (root is tr's):
// its members, however they left the tree, are ended with it, and each
// search for what is left rescans them first.
func TerminateTracked(ctx context.Context, tr *Tracker, root int, marker string, grace time.Duration) (int, error) {
	return terminate(ctx, os.Getpid(), root, marker, grace, tr)
}

func terminate(ctx context.Context, parent, root int, marker string, grace time.Duration, tr *Tracker) (int, error) {
	prot := protectSelf()
	if err := checkRoot(root, prot); err != nil {
		return 0, err
	}
	k := newKiller(prot)
	defer k.close()
	find := func() ([]Proc, []int, error) {
		var tracked []int
		if tr != nil {
			_ = tr.Rescan() // on error, the members as last seen
			tracked = liveTracked(tr.memberMap())
		}
		procs, err := descendantsWith(parent, root, marker, prot, tracked)
		if err != nil {
			return nil, nil, err
		}
		// A zombie root still holds its pid, so its group id cannot have been
		// recycled, and members that scrubbed their environment and lost
		// their parent are reachable only through it.
		var groups []int
		if trustRoot(parent, root, marker) {
			if g := rootGroup(root); g > 0 {
				groups = append(groups, g)
			}
		}
		return procs, groups, nil
	}

	if grace > 0 && ctx.Err() == nil {
		procs, groups, err := find()
		if err != nil {
			return 0, err
		}
		if len(procs) > 0 {
			k.signal(procs, groups, unix.SIGTERM)
			// A stopped process (Ctrl+Z) holds SIGTERM pending until it
			// runs: continue it, as a shell's kill does.
			k.signal(procs, groups, unix.SIGCONT)
			if k.hangUp(procs, root) {
				k.waitHungUp(ctx, grace, procs, root)
			} else {
				k.wait(ctx, grace)
			}
		}
	}

	deadline := time.Now().Add(killWait)
	for {
		procs, groups, err := find()
		if err != nil {
			return k.count(), err
		}
		if len(procs) == 0 && !k.pending() {
			// Members of root's group that scrubbed their marker and lost
			// their parent are invisible to the scan; for a dead tree this
			// signals an empty or zombie-only group, which changes nothing.
			k.signal(nil, groups, unix.SIGKILL)
			return k.count(), nil
		}
		if !time.Now().Before(deadline) {
			return k.count(), fmt.Errorf("%w: %d processes under pid %d", ErrSurvivors, max(len(procs), len(k.live)), root)
		}
		k.signal(procs, groups, unix.SIGKILL)
		k.afterKill(deadline)
	}
}
