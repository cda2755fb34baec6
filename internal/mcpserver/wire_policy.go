package mcpserver

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
