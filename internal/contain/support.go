package contain

import (
	"fmt"
	"slices"
)

// Support is what this machine offers for containment, detected once.
type Support struct {
	Cgroup       bool     // sessions get their own cgroup
	CgroupDir    string   // agentty's parent group, when Cgroup
	CgroupVia    string   // how agentty got it: "root", or the delegated group (its own or a systemd scope) and its leaf
	CgroupReason string   // why not, or why controllers are missing
	Controllers  []string // enabled for session groups: memory, pids, cpu
	LandlockABI  int      // 0: none
	LandlockNote string   // why Landlock is unavailable
	NetNS        bool     // a private network namespace can be made
	NetNSNote    string   // why not
	Rlimits      bool     // setrlimit applies (always on Linux)
	Platform     string   // the portable strategies in use, "" for none (internal/platform)
}

// UnavailableError refuses a start whose profile needs what the kernel
// does not offer, rather than run the program less contained than asked.
type UnavailableError struct {
	Feature string // "cgroup", "landlock", "network namespace", a controller
	Reason  string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s is required but unavailable: %s", e.Feature, e.Reason)
}

// Check returns an *UnavailableError when s cannot give p.
func (s Support) Check(p Profile) error {
	if p.RequireCgroup && !s.Cgroup {
		return &UnavailableError{"cgroup", s.CgroupReason}
	}
	for _, c := range []struct {
		name string
		on   bool
	}{{"memory", p.Limits.MemoryMax > 0 || p.Limits.MemoryHigh > 0}, {"pids", p.Limits.PidsMax > 0}, {"cpu", p.Limits.CPUPercent > 0}} {
		if c.on && !slices.Contains(s.Controllers, c.name) {
			why := s.CgroupReason
			if why == "" {
				why = "not enabled in agentty's cgroup subtree"
			}
			return &UnavailableError{"the cgroup " + c.name + " controller", why}
		}
	}
	need := p.Sandbox.LandlockABI
	if need == 0 && p.Sandbox.Filesystem != FSOff {
		need = 1
	}
	if need > 0 && s.LandlockABI < need {
		why := s.LandlockNote
		if s.LandlockABI > 0 {
			why = fmt.Sprintf("Landlock ABI %d needed, the kernel offers ABI %d", need, s.LandlockABI)
		}
		return &UnavailableError{"landlock", why}
	}
	if p.Sandbox.NoNetwork && !s.NetNS {
		return &UnavailableError{"network namespace", s.NetNSNote}
	}
	if p.Limits.Rlimits() && !s.Rlimits {
		return &UnavailableError{"rlimits", "setrlimit is not available here"}
	}
	return nil
}

// Report is how a session is contained, for get_session_info.
type Report struct {
	Kind    string   // KindCgroup or KindProcessTree; "" for remote sessions
	Reason  string   // why not a cgroup
	Cgroup  string   // the session's group directory
	Sandbox []string // what is applied: "landlock:readonly", "netns", "no_new_privs", "rlimits"
	Limits  Limits
	// Usage, with a cgroup: nil without one; where a Tracker follows the
	// tree (platform Tree), only Processes is known.
	Usage *Usage
	// EndedBy names the limit that ended the session (EndedBy*), "" if none.
	EndedBy string
	// Keeper: without a cgroup, a keeper process holds the tree, so its
	// membership is exact too (backend, keeper_linux.go).
	Keeper bool
	// Tracked: without a cgroup or a keeper, a tracker follows the tree by
	// ancestry (macOS; Linux with AGENTTY_PORTABLE=tree).
	Tracked bool
}

// Usage is what a contained session used; -1 where unknown.
type Usage struct {
	MemoryCurrent int64
	MemoryPeak    int64
	CPUUsec       int64
	Processes     int
	OOMKills      int64
}
