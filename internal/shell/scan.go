package shell

import (
	"time"

	"github.com/agentty/agentty/internal/session"
)

// Session is the PTY session the shell runs in.
func (sh *Shell) Session() *session.Session { return sh.sess }

// Cwd is the working directory the shell reported at its latest prompt.
func (sh *Shell) Cwd() string {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.scanLocked()
	return sh.cwd
}

func (sh *Shell) scannedTo() int64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.scanned
}

// scanLocked searches the output that arrived since the last scan for this
// shell's marks and applies them: C starts the running command's output, D
// ends it with its status and reports the cwd.
func (sh *Shell) scanLocked() {
	final := isDone(sh.sess.Done())
	for {
		sl := sh.sess.RawOutput(sh.scanned, 1<<20)
		if len(sl.Data) == 0 {
			if sl.From > sh.scanned {
				sh.scanned = sl.From // evicted before it was scanned
			}
			return
		}
		marks, n := findMarks(sh.re, sl.Data, sl.From, final && sl.Next >= sl.End)
		for _, m := range marks {
			sh.apply(m)
		}
		sh.scanned = sl.From + int64(n)
		if sl.Next >= sl.End || n == 0 {
			return
		}
	}
}

func (sh *Shell) apply(m mark) {
	r := sh.run
	switch m.kind {
	case markC:
		if r != nil && m.id == r.id && r.outStart < 0 {
			r.outStart, r.returned = m.end, m.end
			sh.dropLocal(r)
		}
	case markD:
		sh.cwd = m.cwd
		if sh.Kind == PowerShell || sh.Kind == Cmd {
			sh.cwd = driveCwd(m.cwd)
		}
		if !sh.ready {
			sh.ready, sh.firstPrompt = true, m.start
		}
		if r != nil && m.id == r.id && !r.done() {
			if r.outStart < 0 {
				// The command never started (the shell could not source its
				// file): no output, only the status.
				r.outStart, r.returned = m.start, m.start
			}
			r.outEnd, r.status, r.ended = m.start, m.status, time.Now()
			sh.dropLocal(r)
		}
	}
}

func (sh *Shell) exitedErr() error {
	return &ShellExitedError{ID: sh.sess.ID, Status: sh.sess.Status()}
}

func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
