//go:build !linux || !(amd64 || arm64)

package inputwait

// exactVerdict: without Linux's per-thread syscall view there is no exact
// verdict.
const exactVerdict = VerdictSettle

// inspectExact cannot read what threads are blocked in on this platform.
func inspectExact(Target) (Probe, error) { return noVerdict(noExact) }

// Inspector probes one target repeatedly; here it holds the inferred
// verdict's history.
type Inspector struct {
	inf inferState
}

// exact: there is no exact verdict here.
func (x *Inspector) exact(t Target) (Probe, error) { return inspectExact(t) }

// Close releases what the inferred verdict's sampler holds.
func (x *Inspector) Close() error {
	x.inf.mu.Lock()
	defer x.inf.mu.Unlock()
	x.inf.scratch.close()
	return nil
}
