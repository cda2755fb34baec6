//go:build linux

package proctree

import (
	"os"
)

// Descendants returns the live (non-zombie) processes below root: its
// children recursively, plus any process whose environment contains exactly
// marker, plus those processes' children. Marked processes are how children
// that were reparented after their parent died (double forks, setsid daemons)
// are still found. root itself is included if alive.
//
// marker is the full entry, e.g. "AGENTTY_SESSION=ab12/s3"; a marker without
// '=' is taken as the value of EnvKey. An empty marker disables the
// environment scan. root 0 means "no root": only marked processes are found.
// Agentty's own pid and its ancestors are never included; asking for them as
// root returns ErrBadRoot.
//
// With a marker, root is only walked if it is still this process's child
// (reaped or not) or carries the marker: a root that was reaped long ago may
// have had its pid recycled by an unrelated process, whose tree must not be
// mistaken for the session's.
func Descendants(root int, marker string) ([]Proc, error) {
	prot := protectSelf()
	if err := checkRoot(root, prot); err != nil {
		return nil, err
	}
	return descendants(os.Getpid(), root, marker, prot)
}

func descendants(parent, root int, marker string, prot protected) ([]Proc, error) {
	return descendantsWith(parent, root, marker, prot, nil)
}

// trustRoot reports whether root's tree belongs to the session: root is
// parent's child (parent is this process, or the session's keeper) or
// carries the marker. Without a marker there is nothing to check against
// and the caller's word is taken.
func trustRoot(parent, root int, marker string) bool {
	if root <= 0 {
		return false
	}
	if marker == "" {
		return true
	}
	st, err := readStat(root)
	if err != nil {
		return false
	}
	// A child of ours cannot have been recycled: its pid stays reserved until
	// we reap it (nor a child of the keeper, until it does). Checking this
	// first also covers a root that exec'd with a scrubbed environment.
	if st.PPID == parent {
		return true
	}
	var r envReader
	return envHasEntry(r.read(root), markerEntry(marker))
}
