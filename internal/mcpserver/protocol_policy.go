package mcpserver

// Wire types of get_policy: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

// PolicyResult is get_policy's result: what the agent may run, so it can
// choose commands that pass instead of learning the rules from refusals.
type PolicyResult struct {
	Enabled bool        `json:"enabled"`
	Rules   PolicyRules `json:"rules"`
	// Protected directories are never a working directory or a path in a
	// command: agentty's configuration and audit log.
	Protected    []string `json:"protected,omitempty"`
	MaxReadBytes int      `json:"max_read_bytes,omitempty"`
	// Containment is the limits and sandbox every local session gets and
	// what the kernel offers.
	Containment *ContainmentPolicy `json:"containment,omitempty"`
	Notes       []string           `json:"notes"`
}

// PolicyRules is get_policy's rules: the wire form of policy.Rules (the
// configuration's [policy] table).
type PolicyRules struct {
	Allow           []string `json:"allow,omitempty"`
	Deny            []string `json:"deny,omitempty"`
	DenyPatterns    []string `json:"deny_patterns,omitempty"`
	Confirm         []string `json:"confirm,omitempty"`
	ConfirmPatterns []string `json:"confirm_patterns,omitempty"`
	Cwd             []string `json:"cwd,omitempty"`
	Secure          bool     `json:"secure,omitempty"`
}
