package mcpserver

import (
	"github.com/agentty/agentty/internal/contain"
)

func limitsInput(l contain.Limits) *LimitsInput {
	if l == (contain.Limits{}) {
		return nil
	}
	return &LimitsInput{MemoryMax: l.MemoryMax, PidsMax: l.PidsMax, CPUPercent: l.CPUPercent, AddressSpace: l.AddressSpace,
		CPUSeconds: l.CPUSeconds, FileSize: l.FileSize, OpenFiles: l.OpenFiles, NoCoreDumps: l.NoCoreDumps}
}

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

func containmentInfo(r contain.Report) *ContainmentInfo {
	if r.Kind == "" {
		return nil
	}
	out := &ContainmentInfo{Kind: r.Kind, Why: r.Reason, Cgroup: r.Cgroup, Sandbox: r.Sandbox, Limits: limitsInput(r.Limits)}
	if u := r.Usage; u != nil {
		cpu := u.CPUUsec
		if cpu > 0 {
			cpu /= 1000
		}
		out.Usage = &UsageInfo{MemoryBytes: u.MemoryCurrent, MemoryPeakBytes: u.MemoryPeak, CPUMs: cpu,
			Processes: u.Processes, OOMKills: u.OOMKills}
	}
	return out
}

func containmentPolicy(p contain.Profile, s contain.Support) *ContainmentPolicy {
	out := &ContainmentPolicy{Limits: limitsInput(p.Limits),
		Kernel: KernelSupport{Cgroup: s.Cgroup, CgroupNote: s.CgroupReason, Controllers: s.Controllers,
			LandlockABI: s.LandlockABI, NetNS: s.NetNS, Rlimits: s.Rlimits}}
	if sb := p.Sandbox; sb.Filesystem != "" || sb.NoNetwork || sb.NoNewPrivs || sb.LandlockABI > 0 || sb.Write != nil {
		out.Sandbox = &SandboxInput{Filesystem: sb.Filesystem, Read: sb.Read, Write: sb.Write, NoNetwork: sb.NoNetwork,
			NoNewPrivs: sb.NoNewPrivs, LandlockABI: sb.LandlockABI}
	}
	if out.Kernel.Controllers == nil {
		out.Kernel.Controllers = []string{}
	}
	for _, n := range []string{s.LandlockNote, s.NetNSNote} {
		if n != "" {
			out.Kernel.Notes = append(out.Kernel.Notes, n)
		}
	}
	return out
}
