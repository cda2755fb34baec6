// Package contain describes how a session is held: the limits and sandbox
// it runs under (a Profile, from the configuration and tightened per call),
// what the kernel offers (Support), and what a running or ended session
// reports (Report). It holds types and rules only; internal/cgroup and
// internal/sandbox do the work, internal/backend applies them to a child.
package contain

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Containment kinds (Report.Kind).
const (
	// KindCgroup: the session's processes live in their own cgroup v2
	// group; membership is exact and terminate is cgroup.kill.
	KindCgroup = "cgroup"
	// KindProcessTree: the tree is found by parentage, process groups and
	// an environment marker (internal/proctree).
	KindProcessTree = "process_tree"
)

// Filesystem sandbox modes (Sandbox.Filesystem), loosest first.
const (
	FSOff = ""
	// FSReadOnly: read and execute everywhere, write only in the session's
	// cwd and Sandbox.Write.
	FSReadOnly = "readonly"
	// FSListed: read only the system directories programs need (SystemRead)
	// and Sandbox.Read, write only the cwd and Sandbox.Write.
	FSListed = "listed"
)

// Ended-by reasons a limit gives (Report.EndedBy).
const (
	EndedByMemory   = "memory_limit"
	EndedByCPU      = "cpu_limit"
	EndedByFileSize = "file_size_limit"
)

// SystemRead are the directories FSListed lets every program read, so
// that dynamically linked programs, interpreters and their configuration
// load; home directories are not among them.
var SystemRead = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/dev", "/run", "/var/lib"}

// Limits bound what one session may use; zero means no limit. The cgroup
// limits apply only where the controller is enabled (Support), the
// rlimits everywhere, to every process of the session.
type Limits struct {
	MemoryMax  int64 // bytes, memory.max: the kernel's OOM killer ends the session above it
	MemoryHigh int64 // bytes, memory.high: reclaim and throttling start here
	PidsMax    int64 // pids.max: most tasks at once
	CPUPercent int   // cpu.max: share of one CPU (200 = two)

	AddressSpace int64 // bytes, RLIMIT_AS per process
	CPUSeconds   int64 // RLIMIT_CPU per process: SIGXCPU, then SIGKILL a second later
	FileSize     int64 // bytes, RLIMIT_FSIZE: largest file a process may write
	OpenFiles    int64 // RLIMIT_NOFILE
	NoCoreDumps  bool  // RLIMIT_CORE 0
}

// Cgroup reports whether any cgroup controller limit is set.
func (l Limits) Cgroup() bool {
	return l.MemoryMax > 0 || l.MemoryHigh > 0 || l.PidsMax > 0 || l.CPUPercent > 0
}

// Rlimits reports whether any rlimit is set.
func (l Limits) Rlimits() bool {
	return l.AddressSpace > 0 || l.CPUSeconds > 0 || l.FileSize > 0 || l.OpenFiles > 0 || l.NoCoreDumps
}

// Sandbox is what a session's processes may see, applied in the child
// before it runs the program.
type Sandbox struct {
	Filesystem string   // FSOff, FSReadOnly or FSListed (Landlock)
	Read       []string // FSListed: readable beyond SystemRead and the cwd
	Write      []string // writable beyond the cwd
	NoNetwork  bool     // a new network namespace with only loopback
	NoNewPrivs bool     // PR_SET_NO_NEW_PRIVS: setuid programs gain nothing
	// LandlockABI is the least Landlock ABI the session needs; a kernel
	// with less refuses the start. 0 means 1 when Filesystem is set.
	LandlockABI int
}

// Profile is a session's containment request.
type Profile struct {
	Limits  Limits
	Sandbox Sandbox
	// RequireCgroup refuses a start that cannot get its own cgroup.
	RequireCgroup bool
}

// NeedsHelper reports whether the child must apply something to itself
// before running the program (rlimits, Landlock, no_new_privs, loopback).
func (p Profile) NeedsHelper() bool {
	s := p.Sandbox
	return p.Limits.Rlimits() || s.Filesystem != FSOff || s.NoNetwork || s.NoNewPrivs || s.LandlockABI > 0
}

// Empty reports whether the profile asks for nothing.
func (p Profile) Empty() bool { return !p.NeedsHelper() && !p.Limits.Cgroup() && !p.RequireCgroup }

// ErrLooser is wrapped when a call asks for less containment than the
// configuration gives every session.
var ErrLooser = errors.New("a call may only tighten the configured containment")

// Tighten returns base made tighter by call: each limit is the call's when
// it is at most the configuration's, flags add up, and paths a call lists
// must lie inside the configuration's. Asking for less is ErrLooser.
func (base Profile) Tighten(call Profile) (Profile, error) {
	out := base
	l, c := &out.Limits, call.Limits
	for _, f := range []struct {
		name string
		dst  *int64
		val  int64
	}{
		{"memory_max", &l.MemoryMax, c.MemoryMax}, {"memory_high", &l.MemoryHigh, c.MemoryHigh},
		{"pids_max", &l.PidsMax, c.PidsMax}, {"address_space", &l.AddressSpace, c.AddressSpace},
		{"cpu_seconds", &l.CPUSeconds, c.CPUSeconds}, {"file_size", &l.FileSize, c.FileSize},
		{"open_files", &l.OpenFiles, c.OpenFiles},
	} {
		if err := tighter(f.name, f.dst, f.val); err != nil {
			return base, err
		}
	}
	pct := int64(l.CPUPercent)
	if err := tighter("cpu_percent", &pct, int64(c.CPUPercent)); err != nil {
		return base, err
	}
	l.CPUPercent = int(pct)
	l.NoCoreDumps = l.NoCoreDumps || c.NoCoreDumps
	out.RequireCgroup = base.RequireCgroup || call.RequireCgroup

	s, cs := &out.Sandbox, call.Sandbox
	if cs.Filesystem != FSOff {
		if fsRank(cs.Filesystem) < 0 {
			return base, fmt.Errorf("filesystem must be %q or %q, not %q", FSReadOnly, FSListed, cs.Filesystem)
		}
		if fsRank(cs.Filesystem) < fsRank(s.Filesystem) {
			return base, fmt.Errorf("%w: filesystem %q is looser than the configured %q", ErrLooser, cs.Filesystem, s.Filesystem)
		}
		s.Filesystem = cs.Filesystem
	}
	if cs.Read != nil {
		if base.Sandbox.Filesystem == FSListed {
			if p, ok := outside(cs.Read, base.Sandbox.Read); !ok {
				return base, fmt.Errorf("%w: read path %s is not inside the configured read paths %v", ErrLooser, p, base.Sandbox.Read)
			}
		}
		s.Read = slices.Clone(cs.Read)
	}
	if cs.Write != nil {
		if base.Sandbox.Filesystem != FSOff {
			if p, ok := outside(cs.Write, base.Sandbox.Write); !ok {
				return base, fmt.Errorf("%w: write path %s is not inside the configured write paths %v", ErrLooser, p, base.Sandbox.Write)
			}
		}
		s.Write = slices.Clone(cs.Write)
	}
	s.NoNetwork = s.NoNetwork || cs.NoNetwork
	s.NoNewPrivs = s.NoNewPrivs || cs.NoNewPrivs
	s.LandlockABI = max(s.LandlockABI, cs.LandlockABI)
	if err := s.listsApply(cs.Read != nil, cs.Write != nil); err != nil {
		return base, err
	}
	return out, nil
}

// listsApply refuses path lists the sandbox's mode ignores: without a
// mode nothing is restricted, so a write list would be accepted and do
// nothing; read paths matter only when reads are listed. The mode is not
// implied, because readonly and listed differ in what may be read.
func (s Sandbox) listsApply(read, write bool) error {
	const modes = `"filesystem": "readonly" (read everywhere, write only in the cwd and the write paths) or "listed" (read only the system directories, the cwd and the read paths)`
	switch {
	case write && s.Filesystem == FSOff:
		return fmt.Errorf("%w: write paths restrict nothing without one; ask for %s", ErrNoMode, modes)
	case read && s.Filesystem != FSListed:
		if s.Filesystem == FSOff {
			return fmt.Errorf("%w: read paths restrict nothing without one; ask for %s", ErrNoMode, modes)
		}
		return fmt.Errorf("%w: read paths restrict nothing in filesystem %q, which reads everywhere; ask for \"filesystem\": \"listed\" to read only the system directories, the cwd and the read paths", ErrNoMode, s.Filesystem)
	}
	return nil
}

// ErrNoMode is wrapped when a sandbox lists paths its filesystem mode
// would ignore.
var ErrNoMode = errors.New("sandbox paths need a filesystem mode that applies them")

// tighter sets *dst to val when val is set and not above a set *dst.
func tighter(name string, dst *int64, val int64) error {
	switch {
	case val < 0:
		return fmt.Errorf("%s must not be negative", name)
	case val == 0:
		return nil
	case *dst > 0 && val > *dst:
		return fmt.Errorf("%w: %s %d is above the configured %d", ErrLooser, name, val, *dst)
	}
	*dst = val
	return nil
}

func fsRank(fs string) int {
	return slices.Index([]string{FSOff, FSReadOnly, FSListed}, fs)
}

// outside returns the first path not inside any of roots.
func outside(paths, roots []string) (string, bool) {
	for _, p := range paths {
		if !slices.ContainsFunc(roots, func(r string) bool { return within(p, r) }) {
			return p, false
		}
	}
	return "", true
}

func within(p, root string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// Check validates a profile's own values (paths absolute, a known mode).
func (p Profile) Check() error {
	if fsRank(p.Sandbox.Filesystem) < 0 {
		return fmt.Errorf("filesystem must be %q or %q, not %q", FSReadOnly, FSListed, p.Sandbox.Filesystem)
	}
	for _, d := range slices.Concat(p.Sandbox.Read, p.Sandbox.Write) {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("sandbox path %q is not absolute", d)
		}
	}
	if p.Sandbox.LandlockABI < 0 {
		return fmt.Errorf("landlock_abi must not be negative")
	}
	return nil
}

// CheckConfig is Check for the configured profile, which is whole: its
// path lists must also be ones its mode applies.
func (p Profile) CheckConfig() error {
	if err := p.Check(); err != nil {
		return err
	}
	return p.Sandbox.listsApply(len(p.Sandbox.Read) > 0, len(p.Sandbox.Write) > 0)
}
