package mcpserver

// Wire types of containment: the per-call limits and sandbox of
// start_process, what get_session_info reports and what get_policy shows.

// LimitsInput tightens the configured limits for one session (0: the
// configuration's).
type LimitsInput struct {
	MemoryMax    int64 `json:"memory_max,omitempty" jsonschema:"bytes (cgroup memory.max)"`
	PidsMax      int64 `json:"pids_max,omitempty" jsonschema:"most tasks (cgroup pids.max)"`
	CPUPercent   int   `json:"cpu_percent,omitempty" jsonschema:"CPU share, 100 = one CPU (cgroup cpu.max)"`
	AddressSpace int64 `json:"address_space,omitempty" jsonschema:"bytes of virtual memory per process (RLIMIT_AS)"`
	CPUSeconds   int64 `json:"cpu_seconds,omitempty" jsonschema:"CPU seconds per process (RLIMIT_CPU)"`
	FileSize     int64 `json:"file_size,omitempty" jsonschema:"largest file a process may write, bytes (RLIMIT_FSIZE)"`
	OpenFiles    int64 `json:"open_files,omitempty" jsonschema:"open files per process (RLIMIT_NOFILE)"`
	NoCoreDumps  bool  `json:"no_core_dumps,omitempty"`
}

// SandboxInput tightens the configured sandbox for one session.
type SandboxInput struct {
	Filesystem  string   `json:"filesystem,omitempty" jsonschema:"readonly (write only the cwd and write paths) or listed (also read only system dirs and read paths)"`
	Read        []string `json:"read,omitempty" jsonschema:"listed: more readable paths"`
	Write       []string `json:"write,omitempty" jsonschema:"writable paths beyond the cwd"`
	NoNetwork   bool     `json:"no_network,omitempty" jsonschema:"own network namespace, loopback only"`
	NoNewPrivs  bool     `json:"no_new_privs,omitempty"`
	LandlockABI int      `json:"landlock_abi,omitempty" jsonschema:"least Landlock ABI required"`
}

// ContainmentInfo is how a session is held (get_session_info).
type ContainmentInfo struct {
	Kind    string       `json:"kind" jsonschema:"cgroup (exact membership, cgroup.kill) or process_tree (parentage and marker)"`
	Why     string       `json:"why,omitempty" jsonschema:"why not a cgroup"`
	Cgroup  string       `json:"cgroup,omitempty"`
	Sandbox []string     `json:"sandbox,omitempty"`
	Limits  *LimitsInput `json:"limits,omitempty"`
	Usage   *UsageInfo   `json:"usage,omitempty"`
}

// UsageInfo is what a session's cgroup used; -1 where its controller is off.
type UsageInfo struct {
	MemoryBytes     int64 `json:"memory_bytes"`
	MemoryPeakBytes int64 `json:"memory_peak_bytes"`
	CPUMs           int64 `json:"cpu_ms"`
	Processes       int   `json:"processes"`
	OOMKills        int64 `json:"oom_kills"`
}

// ContainmentPolicy is what get_policy shows of containment: the
// configured profile every local session gets, and what the kernel offers.
type ContainmentPolicy struct {
	Limits  *LimitsInput  `json:"limits,omitempty"`
	Sandbox *SandboxInput `json:"sandbox,omitempty"`
	Kernel  KernelSupport `json:"kernel"`
}

// KernelSupport is what this machine offers for containment.
type KernelSupport struct {
	Cgroup      bool     `json:"cgroup"`
	CgroupNote  string   `json:"cgroup_note,omitempty"`
	Controllers []string `json:"controllers"`
	LandlockABI int      `json:"landlock_abi"`
	NetNS       bool     `json:"netns"`
	Rlimits     bool     `json:"rlimits"`
	Notes       []string `json:"notes,omitempty"`
}
