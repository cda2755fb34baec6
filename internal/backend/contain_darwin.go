package backend

import (
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/proctree"
)

// ErrNoContainment refuses a start that asks macOS for limits or a
// sandbox: rather than run the program less contained than asked.
var ErrNoContainment = errors.New("macOS has no cgroups, Landlock or network namespaces")

// kept is Linux's keeper (keeper_linux.go); macOS starts none.
type kept struct{}

// box is the containment report of one started tree: on macOS always a
// process tree, under no limits.
type box struct{ report contain.Report }

// startContained starts cmd on start's thread. A Contain that asks for a
// cgroup, a sandbox or limits is refused with ErrNoContainment.
func startContained(cmd *exec.Cmd, spec Spec, start func(func())) (*box, *kept, error) {
	proctree.ChildDefaults()
	var b *box
	if c := spec.Contain; c != nil {
		if c.Cgroups != nil || c.Profile.NeedsHelper() || c.Profile.Limits != (contain.Limits{}) {
			return nil, nil, fmt.Errorf("start %s: %w", spec.Path, ErrNoContainment)
		}
		b = &box{report: contain.Report{Kind: contain.KindProcessTree, Reason: c.NoCgroup}}
	}
	var err error
	start(func() { err = cmd.Start() })
	return b, nil, tooLong(spec, err)
}

// noteExit: no limit can have ended a tree that had none.
func (b *box) noteExit(Exit, rootUsage) {}

// release: there is no group to remove.
func (b *box) release() {}

// rootUsage is what the root process itself used, from its wait.
type rootUsage struct {
	cpu    time.Duration // user + system
	maxRSS int64         // bytes
}

// Containment reports how the tree is held: by its tracker.
func (t *localTree) Containment() contain.Report {
	r := contain.Report{Kind: contain.KindProcessTree, Reason: "containment is not configured"}
	if t.box != nil {
		r = t.box.report
	}
	r.Keeper = t.kept != nil
	r.Tracked = t.tracker != nil
	if t.tracker != nil {
		r.Usage = &contain.Usage{MemoryCurrent: -1, MemoryPeak: -1, CPUUsec: -1, Processes: t.tracker.Len(), OOMKills: -1}
	}
	return r
}
