package nodebackend

import "github.com/agentty/agentty/internal/ports"

// Listening implements backend.Process: the node scans its own kernel's
// socket tables for the program's tree, so the answer is the container's
// view, as exact as locally.
func (p *process) Listening() ([]ports.Socket, error) {
	m, err := p.call(request{Op: opListening}, callTimeout)
	return m.Sockets, err
}
