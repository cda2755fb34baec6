//go:build !linux || !(amd64 || arm64)

package inputwait

// nativeVerdict: without Linux's per-thread syscall view there is no exact
// verdict, and the inferred one is not built yet.
const nativeVerdict = VerdictSettle

// inspectExact cannot read what threads are blocked in on this platform.
func inspectExact(Target) (Probe, error) { return noVerdict(noExact) }

// Inspector probes one target repeatedly; here it holds nothing.
type Inspector struct{}

// exact: there is no exact verdict here.
func (x *Inspector) exact(t Target) (Probe, error) { return inspectExact(t) }

// Close releases nothing on this platform.
func (x *Inspector) Close() error { return nil }
