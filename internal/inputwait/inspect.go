package inputwait

import (
	"fmt"
	"runtime"

	"github.com/agentty/agentty/internal/platform"
)

// Inspect observes the target once with the verdict it asks for: it finds
// the group that owns the input (the terminal's foreground process group,
// or the root's group in pipe mode) and decides whether that group waits
// for its input. It is cheap enough to call in a polling loop, and safe to
// call concurrently.
//
// A Root that has exited yields Running and no error. Errors: the target is
// invalid (ErrInvalidTarget), no verdict is available for it (ErrNoVerdict),
// or its PTY master or stdin pipe cannot be queried.
func Inspect(t Target) (Probe, error) {
	v, p, err := t.verdict()
	if err != nil {
		return p, err
	}
	switch v {
	case VerdictExact:
		return inspectExact(t)
	case VerdictInferred:
		return (*Inspector)(nil).infer(t)
	}
	return settle(t)
}

// Inspect observes t once, as the package-level Inspect does, through the
// state this Inspector keeps between probes of the same target.
func (x *Inspector) Inspect(t Target) (Probe, error) {
	v, p, err := t.verdict()
	if err != nil {
		return p, err
	}
	switch v {
	case VerdictExact:
		return x.exact(t)
	case VerdictInferred:
		return x.infer(t)
	}
	return settle(t)
}

// verdict checks t and resolves its verdict to this platform's own when
// it names none; on error the probe is what Inspect reports.
func (t Target) verdict() (Verdict, Probe, error) {
	if t.Root <= 0 {
		return 0, Probe{State: Running, Detail: "no root process"},
			fmt.Errorf("%w: root pid %d", ErrInvalidTarget, t.Root)
	}
	switch v := t.Verdict; v {
	case VerdictDefault:
		return nativeVerdict(t), Probe{}, nil
	case VerdictExact, VerdictInferred, VerdictSettle:
		return v, Probe{}, nil
	default:
		return 0, Probe{State: Running, Detail: "unknown input-wait verdict"},
			fmt.Errorf("%w: %v", ErrInvalidTarget, v)
	}
}

// nativeVerdict is this platform's own verdict for t. Where the verdict is
// inferred (macOS, and Linux under AGENTTY_PORTABLE) only a terminal gives
// one: a pipe has no foreground group and no modes, so a program sleeping
// and one reading its stdin look alike, and a wrong "awaiting" would end
// waits early; pipe sessions settle, on Linux portable as on macOS.
func nativeVerdict(t Target) Verdict {
	if platform.Current().Verdict {
		if t.PTY != nil {
			return VerdictInferred
		}
		return VerdictSettle
	}
	return exactVerdict
}

// settle answers a target that settles: by choice, or as the only way on
// a platform without a verdict of its own.
func settle(t Target) (Probe, error) {
	switch {
	case t.Verdict != VerdictDefault:
		return noVerdict("settle strategy")
	case platform.Current().Verdict:
		return noVerdict("the inferred verdict needs a terminal; pipe sessions settle")
	}
	return noVerdict(noExact)
}

// noVerdict is the answer when no verdict is available: Running, which
// never ends a wait by itself, with the reason.
func noVerdict(why string) (Probe, error) {
	return Probe{State: Running, Detail: "no input-wait verdict (" + why + "); waits settle"},
		fmt.Errorf("%w: %s", ErrNoVerdict, why)
}

// noExact is why this platform has no exact verdict.
const noExact = "no exact verdict on " + runtime.GOOS + "/" + runtime.GOARCH
