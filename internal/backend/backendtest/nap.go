package backendtest

import "time"

// Nap is the scripted counterpart of a local process's short sleep that
// output ends early: it sleeps d and counts the call (Naps), so a test can
// tell a look taken at once from one taken after a pause.
func (p *Process) Nap(d time.Duration) (woke bool) {
	p.naps.Add(1)
	time.Sleep(d)
	return false
}

// Naps returns how many times the engine napped on the process. It takes
// no lock, so a probe function may call it.
func (p *Process) Naps() int { return int(p.naps.Load()) }
