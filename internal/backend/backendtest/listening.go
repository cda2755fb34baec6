package backendtest

import "github.com/agentty/agentty/internal/ports"

// SetListening makes Listening return ss (nil: none) or err.
func (p *Process) SetListening(ss []ports.Socket, err error) {
	p.lmu.Lock()
	defer p.lmu.Unlock()
	p.listening, p.listenErr = ss, err
}

// Listening implements backend.Process with what SetListening set.
func (p *Process) Listening() ([]ports.Socket, error) {
	p.lmu.Lock()
	defer p.lmu.Unlock()
	return p.listening, p.listenErr
}
