package nodebackend

import (
	"fmt"

	"github.com/agentty/agentty/internal/ports"
)

// Listening implements backend.Process: the node's wire protocol has no
// request for listening sockets yet, so listen waits are refused on nodes
// with a message saying so.
func (p *process) Listening() ([]ports.Socket, error) {
	return nil, fmt.Errorf("%w (node %s)", ports.ErrUnsupported, p.Host())
}
