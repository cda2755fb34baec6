package mcpserver

import (
	"sync"
	"time"

	"github.com/agentty/agentty/internal/termtext"
)

// execProgress is the ProgressSource of one exec_command or await_command
// call: it sees only the running command's own output (through the shell's
// OnOutput hook), so progress messages never show the prompt or the typed
// command line.
type execProgress struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced under mu at each output
	end     int64         // bytes of command output seen; guarded by mu
	last    string        // newest non-blank line; guarded by mu
}

func newExecProgress() *execProgress { return &execProgress{changed: make(chan struct{})} }

// onOutput is the shell.ExecOptions.OnOutput hook.
func (p *execProgress) onOutput(_ time.Duration, newest []byte) {
	line := termtext.LastLine(newest, 200)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.end += int64(len(newest))
	if line != "" {
		p.last = line
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *execProgress) OutputChanged() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

func (p *execProgress) OutputEnd() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.end
}

func (p *execProgress) LastLine() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}
