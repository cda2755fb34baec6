//go:build !linux || !(amd64 || arm64)

package inputwait

// Inspect cannot observe the kernel on this platform; it reports Running so
// callers fall back to their own timeouts.
func Inspect(t Target) (Probe, error) {
	return Probe{State: Running, Detail: "input-wait detection is not supported on this platform"}, ErrUnsupported
}

// Inspector probes one target repeatedly; here it holds nothing.
type Inspector struct{}

// Inspect observes t once, as the package-level Inspect does.
func (x *Inspector) Inspect(t Target) (Probe, error) { return Inspect(t) }

// Close releases nothing on this platform.
func (x *Inspector) Close() error { return nil }
