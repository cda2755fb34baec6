package sandbox

import "github.com/agentty/agentty/internal/contain"

// Spec is what the helper applies and then runs.
type Spec struct {
	Path    string          `json:"path"`
	Argv    []string        `json:"argv"`
	Limits  contain.Limits  `json:"limits"`
	Sandbox contain.Sandbox `json:"sandbox"`
	// DropCaps clears the ambient capabilities the helper was given to
	// bring loopback up in a user namespace.
	DropCaps bool `json:"drop_caps,omitempty"`
}
