package backend

import (
	"github.com/agentty/agentty/internal/cgroup"
	"github.com/agentty/agentty/internal/contain"
)

// Contain is how a local start is held (Spec.Contain); nil keeps the
// process-tree tracking with no limits and no sandbox.
type Contain struct {
	Profile contain.Profile
	// Cgroups is agentty's cgroup subtree; nil means no cgroup, and
	// NoCgroup says why.
	Cgroups  *cgroup.Parent
	NoCgroup string
	// Group names the session's own group below Cgroups (its id).
	Group string
}
