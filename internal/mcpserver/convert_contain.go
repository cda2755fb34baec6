package mcpserver

import (
	"fmt"

	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/session"
)

// profileOf is a call's containment request (nil when it asks for none).
func profileOf(l *LimitsInput, s *SandboxInput) *contain.Profile {
	if l == nil && s == nil {
		return nil
	}
	var p contain.Profile
	if l != nil {
		p.Limits = contain.Limits{MemoryMax: l.MemoryMax, PidsMax: l.PidsMax, CPUPercent: l.CPUPercent,
			AddressSpace: l.AddressSpace, CPUSeconds: l.CPUSeconds, FileSize: l.FileSize, OpenFiles: l.OpenFiles,
			NoCoreDumps: l.NoCoreDumps}
	}
	if s != nil {
		p.Sandbox = contain.Sandbox{Filesystem: s.Filesystem, Read: s.Read, Write: s.Write, NoNetwork: s.NoNetwork,
			NoNewPrivs: s.NoNewPrivs, LandlockABI: s.LandlockABI}
	}
	return &p
}

// sandboxAsks refuses a sandbox object that asks for nothing: it would be
// accepted and leave the session as free as without it.
func sandboxAsks(s *SandboxInput) error {
	if s == nil || s.Filesystem != "" || s.Read != nil || s.Write != nil || s.NoNetwork || s.NoNewPrivs || s.LandlockABI != 0 {
		return nil
	}
	return fmt.Errorf(`%w: sandbox {} restricts nothing; ask for "filesystem": "readonly" or "listed", "no_network": true or "no_new_privs": true, or leave sandbox out`, session.ErrBadArgs)
}

func containmentInfo(r contain.Report) *ContainmentInfo {
	if r.Kind == "" {
		return nil
	}
	out := &ContainmentInfo{Kind: r.Kind, Why: r.Reason, Cgroup: r.Cgroup, Sandbox: r.Sandbox, Limits: limitsMap(r.Limits)}
	if u := r.Usage; u != nil {
		out.Usage = known(map[string]int64{"memory_bytes": u.MemoryCurrent, "memory_peak_bytes": u.MemoryPeak,
			"cpu_ms": u.CPUUsec / 1000, "processes": int64(u.Processes), "oom_kills": u.OOMKills})
		if u.CPUUsec < 0 {
			delete(out.Usage, "cpu_ms")
		}
	}
	return out
}

// limitsMap names the limits in force as start_process's limits do.
func limitsMap(l contain.Limits) map[string]int64 {
	m := known(map[string]int64{"memory_max": l.MemoryMax, "memory_high": l.MemoryHigh, "pids_max": l.PidsMax,
		"cpu_percent": int64(l.CPUPercent), "address_space": l.AddressSpace, "cpu_seconds": l.CPUSeconds,
		"file_size": l.FileSize, "open_files": l.OpenFiles})
	for k, v := range m {
		if v == 0 {
			delete(m, k)
		}
	}
	if l.NoCoreDumps {
		m["core_file_size"] = 0
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// known drops the values that are unknown (-1).
func known(m map[string]int64) map[string]int64 {
	for k, v := range m {
		if v < 0 {
			delete(m, k)
		}
	}
	return m
}

func containmentPolicy(p contain.Profile, s contain.Support) *ContainmentPolicy {
	out := &ContainmentPolicy{Limits: limitsMap(p.Limits),
		Kernel: KernelSupport{Cgroup: s.Cgroup, CgroupVia: s.CgroupVia, Controllers: s.Controllers, LandlockABI: s.LandlockABI, NetNS: s.NetNS, Rlimits: s.Rlimits}}
	if sb := p.Sandbox; sb.Filesystem != "" || sb.NoNetwork || sb.NoNewPrivs || sb.LandlockABI > 0 || sb.Write != nil {
		out.Sandbox = &SandboxInput{Filesystem: sb.Filesystem, Read: sb.Read, Write: sb.Write, NoNetwork: sb.NoNetwork,
			NoNewPrivs: sb.NoNewPrivs, LandlockABI: sb.LandlockABI}
	}
	if out.Kernel.Controllers == nil {
		out.Kernel.Controllers = []string{}
	}
	for _, n := range []string{s.CgroupReason, s.LandlockNote, s.NetNSNote, s.Platform} {
		if n != "" {
			out.Kernel.Notes = append(out.Kernel.Notes, n)
		}
	}
	return out
}
