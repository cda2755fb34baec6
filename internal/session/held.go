package session

import (
	"strings"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/contain"
)

// What a held session is held by (peers.Sessions' why).
const (
	HeldSandbox = "sandbox"
	HeldLimits  = "limits"
)

// heldBy says what holds a local start's processes: a sandbox (Landlock,
// a private network, no_new_privs), limits only, or nothing.
func heldBy(c *backend.Contain) string {
	if c == nil {
		return ""
	}
	return heldProfile(c.Profile)
}

func heldProfile(p contain.Profile) string {
	s := p.Sandbox
	switch {
	case s.Filesystem != contain.FSOff || s.NoNetwork || s.NoNewPrivs || s.LandlockABI > 0:
		return HeldSandbox
	case p.Limits.Cgroup() || p.Limits.Rlimits():
		return HeldLimits
	}
	return ""
}

// runHeld is what holds run_command runs (ContainRun's profile).
func (m *Manager) runHeld() string {
	if m.cfg.Contain == nil {
		return ""
	}
	p := m.ContainProfile()
	if c := &m.contain; !c.ready.Load() || c.parent == nil {
		p.Limits.MemoryMax, p.Limits.MemoryHigh, p.Limits.PidsMax, p.Limits.CPUPercent = 0, 0, 0, 0
	}
	return heldProfile(p)
}

// Root names the local session (or run_command run, "run") whose root
// process is pid and what holds it; ok is false when pid is no root whose
// exit status is still to be collected (so the pid cannot have been
// reused).
func (m *Manager) Root(pid int) (id, why string, ok bool) {
	m.spawnMu.RLock()
	s, owned := m.roots[pid]
	m.spawnMu.RUnlock()
	switch {
	case !owned:
		return "", "", false
	case s != nil:
		return s.ID, s.held, true
	}
	return "run", m.runHeld(), true
}

// Group names the session whose cgroup is dir or holds it; ok is false
// when dir is not below this manager's cgroup parent. A group no session
// owns any more is refused as "ended".
func (m *Manager) Group(dir string) (id, why string, ok bool) {
	c := &m.contain
	if !c.ready.Load() || c.parent == nil {
		return "", "", false
	}
	rel, ok := strings.CutPrefix(dir, c.parent.Dir()+"/")
	if !ok {
		return "", "", false
	}
	name, _, _ := strings.Cut(rel, "/")
	if strings.HasPrefix(name, "run-") {
		return name, m.runHeld(), true
	}
	m.mu.Lock()
	s := m.sessions[name]
	m.mu.Unlock()
	if s == nil {
		s = m.starting(name)
	}
	if s == nil {
		return name, "ended", true
	}
	return name, s.held, true
}

// starting finds a session whose root runs but which is not listed yet.
func (m *Manager) starting(id string) *Session {
	m.spawnMu.RLock()
	defer m.spawnMu.RUnlock()
	for _, s := range m.roots {
		if s != nil && s.ID == id {
			return s
		}
	}
	return nil
}

// Contained names a held local session this manager still has (running,
// or ended and not yet removed), or a held run in progress; why is ""
// when there is none.
func (m *Manager) Contained() (id, why string) {
	m.mu.Lock()
	for _, s := range m.sessions {
		if s.held != "" {
			m.mu.Unlock()
			return s.ID, s.held
		}
	}
	m.mu.Unlock()
	why = m.runHeld()
	if why == "" {
		return "", ""
	}
	m.spawnMu.RLock()
	defer m.spawnMu.RUnlock()
	for _, s := range m.roots {
		if s == nil {
			return "run", why
		}
	}
	return "", ""
}
