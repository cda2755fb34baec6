package nodebackend

import "github.com/agentty/agentty/internal/contain"

// Containment is empty: the node (its container) holds the tree.
func (p *process) Containment() contain.Report { return contain.Report{} }
