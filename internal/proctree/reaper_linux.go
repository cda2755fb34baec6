//go:build linux

package proctree

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// SetSubreaper makes this process a child subreaper (PR_SET_CHILD_SUBREAPER)
// so orphaned descendants are reparented to agentty instead of init: they stay
// findable by tree walks and agentty can reap them. Pair it with RunReaper, or
// the adopted orphans linger as zombies.
func SetSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("proctree: set child subreaper: %w", err)
	}
	return nil
}

// RunReaper reaps zombie children of this process that nobody else will wait
// for: orphans adopted as subreaper. It blocks until ctx is done, waking on
// SIGCHLD and waiting (WNOHANG) for every zombie child for which owned
// returns false.
//
// owned must report true for every child some other code will wait for
// (session roots run by os/exec, the guard), or that code gets ECHILD. A
// child can exit before its starter records its pid, so the starter should
// hold a lock across Start and recording that owned also takes. owned may be
// nil when no other code waits for children.
func RunReaper(ctx context.Context, owned func(pid int) bool) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	for {
		// Reap before the first wait too: orphans may have exited already.
		reapOrphans(owned)
		select {
		case <-ctx.Done():
			return
		case <-sigs:
		}
	}
}

// reapOrphans waits for every zombie child not owned by someone else and
// returns how many it reaped. SIGCHLDs coalesce, so it handles all zombies,
// not one per signal. Owned children are passed over before their stat is
// read: with a thousand sessions every SIGCHLD would otherwise read a
// thousand stat files to find the one orphan.
func reapOrphans(owned func(pid int) bool) int {
	s := newSnapshot()
	n := 0
	for _, pid := range s.children(os.Getpid()) {
		if owned != nil && owned(pid) {
			continue
		}
		st, ok := s.stat(pid)
		if !ok || st.State != 'Z' {
			continue
		}
		var ws unix.WaitStatus
		if got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil); err == nil && got == pid {
			n++
		}
	}
	return n
}
