//go:build linux || darwin

package proctree

import (
	"fmt"
	"slices"
)

// descendantsWith is descendants with more roots, known to be the
// session's (a Tracker's live members).
func descendantsWith(parent, root int, marker string, prot protected, more []int) ([]Proc, error) {
	roots := slices.Clone(more)
	if trustRoot(parent, root, marker) {
		roots = append(roots, root)
	}
	var match func([]byte) bool
	if marker != "" {
		entry := markerEntry(marker)
		match = func(env []byte) bool { return envHasEntry(env, entry) }
	}
	procs, err := collect(roots, match, prot)
	if err != nil {
		return nil, fmt.Errorf("proctree: descendants of %d: %w", root, err)
	}
	return procs, nil
}
