package session

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/cgroup"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/platform"
	"github.com/agentty/agentty/internal/sandbox"
	"github.com/agentty/agentty/internal/systemd"
)

// ContainConfig is how local sessions are held (Config.Contain).
type ContainConfig struct {
	// Profile is every local session's limits and sandbox; a call may
	// only tighten it (StartOptions.Contain).
	Profile contain.Profile
	// Cgroups gives each session its own cgroup v2 group where agentty
	// can create one; sessions fall back to process-tree tracking (or are
	// refused, with Profile.RequireCgroup) where it cannot.
	Cgroups bool
	// Delegator is asked for a delegated cgroup when agentty is not root
	// and its own cgroup is not delegated; nil asks the user's systemd for
	// a transient scope over D-Bus (internal/systemd).
	Delegator cgroup.Delegator
}

// containment is the Manager's view of the machine, set up once.
type containment struct {
	once    sync.Once
	support contain.Support // set in once
	parent  *cgroup.Parent  // set in once; nil: no cgroups
	runs    atomic.Int64    // run_command groups made so far (their names)
	ready   atomic.Bool     // set at the end of once: parent may be read without it
}

// containSetup detects what the kernel offers and creates agentty's cgroup
// subtree, on first use.
func (m *Manager) containSetup() *containment {
	c := &m.contain
	c.once.Do(func() {
		defer c.ready.Store(true)
		sandbox.Detect(&c.support)
		if s := platform.Current(); s.Any() {
			c.support.Platform = "portable strategies: " + s.String()
			if runtime.GOOS == "linux" {
				c.support.Platform += " (" + platform.Env + ")"
			}
		}
		cc := m.cfg.Contain
		if platform.Current().Tree {
			c.support.CgroupReason = "sessions are tracked by ancestry, as macOS must: no cgroup, no keeper"
			return
		}
		if cc == nil || !cc.Cgroups {
			c.support.CgroupReason = "cgroups are off in the configuration"
			return
		}
		d := cc.Delegator
		if d == nil {
			d = systemd.NewScope(cgroup.ParentName(m.instance) + ".scope")
		}
		p, err := cgroup.OpenWith(cgroup.ParentName(m.instance), cgroup.Options{Delegator: d})
		if err != nil {
			c.support.CgroupReason = err.Error()
			m.log.Info("sessions are tracked by process tree", "reason", err)
			return
		}
		c.parent = p
		c.support.Cgroup, c.support.CgroupDir, c.support.CgroupVia = true, p.Dir(), p.Via()
		c.support.Controllers, c.support.CgroupReason = p.Controllers(), p.Note()
	})
	return c
}

// ContainSupport is what this machine offers for containment.
func (m *Manager) ContainSupport() contain.Support {
	c := m.containSetup()
	return c.support
}

// ContainProfile is the configured profile every local session gets.
func (m *Manager) ContainProfile() contain.Profile {
	if m.cfg.Contain == nil {
		return contain.Profile{}
	}
	return m.cfg.Contain.Profile
}

// containFor builds a local start's containment: the configured profile
// tightened by the call's, checked against what the kernel offers.
func (m *Manager) containFor(call *contain.Profile, ownRead []string, id string) (*backend.Contain, error) {
	c := m.containSetup()
	p := m.ContainProfile()
	if call != nil {
		if err := call.Check(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadArgs, err)
		}
		var err error
		if p, err = p.Tighten(*call); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadArgs, err)
		}
	}
	if err := c.support.Check(p); err != nil {
		return nil, err
	}
	if p.Sandbox.Filesystem == contain.FSListed && len(ownRead) > 0 {
		p.Sandbox.Read = append(slices.Clone(p.Sandbox.Read), ownRead...)
	}
	if m.cfg.Contain == nil && call == nil {
		return nil, nil
	}
	bc := &backend.Contain{Profile: p, Group: id}
	if c.parent != nil {
		bc.Cgroups = c.parent
	} else {
		bc.NoCgroup = c.support.CgroupReason
	}
	return bc, nil
}

// ContainRun is the containment of a run_command run: the configured
// sandbox and rlimits, and, where agentty has a cgroup subtree, a group of
// its own ("run-N") with the configured cgroup limits, so its membership
// is exact and the runner ends whatever the run left behind with
// cgroup.kill. Without a cgroup the cgroup limits are left out and the run
// is tracked by process tree, as before.
func (m *Manager) ContainRun() (*backend.Contain, error) {
	if m.cfg.Contain == nil {
		return nil, nil
	}
	c := m.containSetup()
	p := m.ContainProfile()
	p.RequireCgroup = false
	if c.parent == nil {
		p.Limits.MemoryMax, p.Limits.MemoryHigh, p.Limits.PidsMax, p.Limits.CPUPercent = 0, 0, 0, 0
	}
	if err := c.support.Check(p); err != nil {
		return nil, err
	}
	if c.parent != nil {
		return &backend.Contain{Profile: p, Cgroups: c.parent, Group: "run-" + strconv.FormatInt(c.runs.Add(1), 10)}, nil
	}
	if !p.NeedsHelper() {
		return nil, nil
	}
	return &backend.Contain{Profile: p, NoCgroup: "run_command runs are tracked by process tree: " + c.support.CgroupReason}, nil
}

// Keeper is how local trees no cgroup holds are started (Config.Keeper).
func (m *Manager) Keeper() []string { return m.cfg.Keeper }

// closeContain removes agentty's cgroup subtree once every session ended.
func (m *Manager) closeContain() {
	m.contain.once.Do(func() {}) // no set-up after this
	if p := m.contain.parent; p != nil {
		if err := p.Close(); err != nil {
			m.log.Warn("cannot remove agentty's cgroup", "dir", p.Dir(), "err", err)
		}
	}
}

// startFailed words a local start's failure: a containment the kernel
// would not give stays itself, anything else is the program's.
func startFailed(path string, err error) error {
	var ue *contain.UnavailableError
	if errors.As(err, &ue) {
		return err
	}
	return startError(path, err)
}

// Containment says how the session's tree is held, its limits, sandbox
// and usage (zero for remote sessions). It reads the cgroup's files.
func (s *Session) Containment() contain.Report { return s.proc.Containment() }

// noteLimit records a limit that ended the program (the kernel's verdict,
// read by the backend) unless agentty ended it for its own limit first.
func (s *Session) noteLimit() {
	by := s.proc.Containment().EndedBy
	if by == "" {
		return
	}
	s.mu.Lock()
	if s.endedBy == "" {
		s.endedBy = by
	}
	s.mu.Unlock()
}
