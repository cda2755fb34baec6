package mcpserver

// Wire types of containment: the per-call limits and sandbox of
// start_process, what get_session_info reports and what get_policy shows.

// LimitsInput tightens the configured limits for one session (0: the
// configuration's).
type LimitsInput struct {
	MemoryMax    int64 `json:"memory_max,omitempty" jsonschema:"bytes, whole session (cgroup)"`
	PidsMax      int64 `json:"pids_max,omitempty" jsonschema:"tasks, whole session (cgroup)"`
	CPUPercent   int   `json:"cpu_percent,omitempty" jsonschema:"100 = one CPU (cgroup)"`
	AddressSpace int64 `json:"address_space,omitempty" jsonschema:"bytes per process"`
	CPUSeconds   int64 `json:"cpu_seconds,omitempty" jsonschema:"per process"`
	FileSize     int64 `json:"file_size,omitempty" jsonschema:"largest file written, bytes"`
	OpenFiles    int64 `json:"open_files,omitempty"`
	NoCoreDumps  bool  `json:"no_core_dumps,omitempty"`
}

// SandboxInput tightens the configured sandbox for one session.
type SandboxInput struct {
	Filesystem  string   `json:"filesystem,omitempty" jsonschema:"readonly: write only cwd and write; listed: also read only system dirs and read"`
	Read        []string `json:"read,omitempty"`
	Write       []string `json:"write,omitempty"`
	NoNetwork   bool     `json:"no_network,omitempty" jsonschema:"loopback only"`
	NoNewPrivs  bool     `json:"no_new_privs,omitempty"`
	LandlockABI int      `json:"landlock_abi,omitempty" jsonschema:"least ABI required"`
}

// ContainmentInfo is how a session is held (get_session_info).
type ContainmentInfo struct {
	Kind    string           `json:"kind" jsonschema:"cgroup or process_tree"`
	Why     string           `json:"why,omitempty" jsonschema:"why not a cgroup"`
	Cgroup  string           `json:"cgroup,omitempty"`
	Sandbox []string         `json:"sandbox,omitempty"`
	Limits  map[string]int64 `json:"limits,omitempty" jsonschema:"limits in force, named as start_process's"`
	Usage   map[string]int64 `json:"usage,omitempty" jsonschema:"memory_bytes, memory_peak_bytes, cpu_ms, processes, oom_kills (those known)"`
}

// ContainmentPolicy is what get_policy shows of containment: the
// configured profile every local session gets, and what the kernel offers.
type ContainmentPolicy struct {
	Limits  map[string]int64 `json:"limits,omitempty"`
	Sandbox *SandboxInput    `json:"sandbox,omitempty"`
	Kernel  KernelSupport    `json:"kernel"`
}

// KernelSupport is what this machine offers for containment.
type KernelSupport struct {
	Cgroup bool `json:"cgroup"`
	// CgroupVia says how agentty got its cgroup subtree: "root", or the
	// delegated group (its own, or a systemd scope made for it).
	CgroupVia   string   `json:"cgroup_via,omitempty" jsonschema:"root, or the delegated group or systemd scope agentty moved into"`
	Controllers []string `json:"controllers"`
	LandlockABI int      `json:"landlock_abi"`
	NetNS       bool     `json:"netns"`
	Rlimits     bool     `json:"rlimits"`
	Notes       []string `json:"notes,omitempty"`
}
