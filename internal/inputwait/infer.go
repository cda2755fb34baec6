package inputwait

// infer is where the inferred verdict plugs in: a decision from facts every
// supported kernel shows (see VerdictInferred), sampled over time through
// x, which is nil for a one-off probe (Inspect). This build has none yet,
// so a target that asks for it gets no verdict.
func (x *Inspector) infer(Target) (Probe, error) {
	return noVerdict("the inferred verdict is not built yet")
}
