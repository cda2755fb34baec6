package shell

import (
	"sync"
	"time"

	"github.com/agentty/agentty/internal/termtext"
)

// Progress follows one Exec or Await call for progress messages: it sees
// only the running command's own output (through ExecOptions.OnOutput), so
// progress never shows the prompt or the typed command line. Its methods
// are those of mcpserver.ProgressSource.
type Progress struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced under mu at each output
	end     int64         // bytes of command output seen; guarded by mu
	last    string        // newest non-blank line; guarded by mu
}

// NewProgress returns a Progress that has seen no output yet.
func NewProgress() *Progress { return &Progress{changed: make(chan struct{})} }

// OnOutput is the ExecOptions.OnOutput hook.
func (p *Progress) OnOutput(_ time.Duration, newest []byte) {
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

// OutputChanged returns a channel closed at the next output.
func (p *Progress) OutputChanged() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// OutputEnd is the number of command output bytes seen; it never decreases.
func (p *Progress) OutputEnd() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.end
}

// LastLine is the newest non-blank line of the command's clean output.
func (p *Progress) LastLine() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}
