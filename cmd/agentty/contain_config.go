package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentty/agentty/internal/config"
	core "github.com/agentty/agentty/internal/server"
)

// limitsSection is the configuration's [limits] table: every local
// session's limits (a call may only tighten them).
type limitsSection struct {
	MemoryMax     byteSize `toml:"memory_max"`
	MemoryHigh    byteSize `toml:"memory_high"`
	PidsMax       int64    `toml:"pids_max"`
	CPUPercent    int      `toml:"cpu_percent"`
	AddressSpace  byteSize `toml:"address_space"`
	CPUSeconds    int64    `toml:"cpu_seconds"`
	FileSize      byteSize `toml:"file_size"`
	OpenFiles     int64    `toml:"open_files"`
	NoCoreDumps   bool     `toml:"no_core_dumps"`
	RequireCgroup bool     `toml:"require_cgroup"`
}

// sandboxSection is the configuration's [sandbox] table.
type sandboxSection struct {
	Filesystem  string   `toml:"filesystem"` // "", "readonly" or "listed"
	Read        []string `toml:"read"`
	Write       []string `toml:"write"`
	NoNetwork   bool     `toml:"no_network"`
	NoNewPrivs  bool     `toml:"no_new_privs"`
	LandlockABI int      `toml:"landlock_abi"`
}

// byteSize is a size written as 512MiB, 1GiB or a plain number of bytes.
type byteSize int64

func (b *byteSize) UnmarshalText(p []byte) error {
	n, err := parseBytes(string(p))
	*b = byteSize(n)
	return err
}

// containFlags registers -cgroups.
func containFlags(fs *flag.FlagSet) *bool {
	return fs.Bool("cgroups", true, "give each local session its own cgroup v2 group where agentty can create one (exact membership, cgroup.kill, usage)")
}

// containOptions reads [limits] and [sandbox].
func containOptions(cfg *config.Config, cgroups bool) (*core.ContainConfig, error) {
	var l limitsSection
	var s sandboxSection
	if err := cfg.Section("limits", &l); err != nil {
		return nil, err
	}
	if err := cfg.Section("sandbox", &s); err != nil {
		return nil, err
	}
	p := core.ContainProfile{
		Limits: core.ContainLimits{MemoryMax: int64(l.MemoryMax), MemoryHigh: int64(l.MemoryHigh), PidsMax: l.PidsMax,
			CPUPercent: l.CPUPercent, AddressSpace: int64(l.AddressSpace), CPUSeconds: l.CPUSeconds,
			FileSize: int64(l.FileSize), OpenFiles: l.OpenFiles, NoCoreDumps: l.NoCoreDumps},
		Sandbox: core.ContainSandbox{Filesystem: s.Filesystem, Read: expand(s.Read), Write: expand(s.Write),
			NoNetwork: s.NoNetwork, NoNewPrivs: s.NoNewPrivs, LandlockABI: s.LandlockABI},
		RequireCgroup: l.RequireCgroup,
	}
	if err := p.CheckConfig(); err != nil {
		return nil, fmt.Errorf("%w: %s: [sandbox]: %v", config.ErrConfig, cfg.Path, err)
	}
	return &core.ContainConfig{Profile: p, Cgroups: cgroups}, nil
}

// expand makes ~/ paths absolute.
func expand(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if len(p) > 1 && p[:2] == "~/" {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		out = append(out, p)
	}
	return out
}
