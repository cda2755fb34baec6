package sshbackend

import (
	"github.com/agentty/agentty/internal/inputwait"
)

// Inspect asks the remote kernel, through the connection's helper, whether
// the program's input group is blocked reading its input. Where no helper
// runs (non-Linux remote) it reports running and says that waits fall back
// to until, settle_ms and exit.
func (p *process) Inspect() (inputwait.Probe, error) {
	p.probeMark.Store(p.appended.Load())
	h, err := p.conn.helperFor()
	if err != nil {
		return inputwait.Probe{State: inputwait.Running,
			Detail: "no remote kernel probe (" + err.Error() + "); waits decide by until, settle_ms and exit"}, nil
	}
	ans, err := h.request("P %d", p.pid)
	if err != nil {
		return inputwait.Probe{State: inputwait.Running, Detail: "remote probe failed"}, err
	}
	pr, err := parseProbe(ans)
	p.mu.Lock()
	p.lastProbe = pr
	p.mu.Unlock()
	return pr, err
}

// parseProbe judges a helper's answer (see inputwait.Remote).
func parseProbe(ans string) (inputwait.Probe, error) {
	pr, err := inputwait.Remote(ans)
	if err == nil && pr.Detail != "" {
		pr.Detail = "remote " + pr.Detail + " (remote /proc probe)"
	}
	return pr, err
}
