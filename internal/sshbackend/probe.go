package sshbackend

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

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

// parseProbe reads "STATE SCHEDSUM MEMBERS PGID DETAIL".
func parseProbe(ans string) (inputwait.Probe, error) {
	f := strings.SplitN(ans, " ", 5)
	if len(f) < 4 {
		return inputwait.Probe{State: inputwait.Running, Detail: "remote probe: bad answer"}, fmt.Errorf("remote probe: bad answer %q", ans)
	}
	pr := inputwait.Probe{State: inputwait.Running}
	switch f[0] {
	case string(inputwait.AwaitingInput):
		pr.State = inputwait.AwaitingInput
	case string(inputwait.AwaitingPassword):
		pr.State = inputwait.AwaitingPassword
	}
	h := fnv.New64a()
	for _, x := range f[1:4] {
		if _, err := strconv.ParseInt(x, 10, 64); err != nil {
			return inputwait.Probe{State: inputwait.Running, Detail: "remote probe: bad answer"}, fmt.Errorf("remote probe: bad answer %q", ans)
		}
		h.Write([]byte(x + " "))
	}
	pr.Fingerprint = h.Sum64()
	if len(f) == 5 {
		pr.Detail = "remote " + f[4] + " (remote /proc probe)"
	}
	return pr, nil
}
