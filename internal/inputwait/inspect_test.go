package inputwait

import (
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/agentty/agentty/internal/platform"
)

// TestInspect_Verdicts: a Target's Verdict picks how it is judged; where no
// verdict is available the probe is Running, says why, and fails with
// ErrNoVerdict, through Inspect and an Inspector alike, on every platform.
func TestInspect_Verdicts(t *testing.T) {
	type verdictCase struct {
		name   string
		target Target
		err    error
		detail string
	}
	self := os.Getpid()
	inferredNoPTY := "no input-wait verdict (the inferred verdict needs a terminal); waits settle"
	if !inferBuilt {
		inferredNoPTY = "no input-wait verdict (no inferred verdict on " + runtime.GOOS + "/" + runtime.GOARCH + "); waits settle"
	}
	cases := []verdictCase{
		{"settle", Target{Root: self, Verdict: VerdictSettle}, ErrNoVerdict,
			"no input-wait verdict (settle strategy); waits settle"},
		{"inferred", Target{Root: self, Verdict: VerdictInferred}, ErrNoVerdict, inferredNoPTY},
		{"unknown verdict", Target{Root: self, Verdict: VerdictSettle + 1}, ErrInvalidTarget, "unknown input-wait verdict"},
		{"no root", Target{Verdict: VerdictSettle}, ErrInvalidTarget, "no root process"},
	}
	noExact := "no input-wait verdict (no exact verdict on " + runtime.GOOS + "/" + runtime.GOARCH + "); waits settle"
	if exactVerdict != VerdictExact {
		cases = append(cases, verdictCase{"exact", Target{Root: self, Verdict: VerdictExact}, ErrNoVerdict, noExact})
	}
	switch {
	case platform.Current().Verdict:
		// Inferred where the platform infers: a target without a terminal
		// (pipe mode) settles.
		cases = append(cases, verdictCase{"default", Target{Root: self}, ErrNoVerdict,
			"no input-wait verdict (the inferred verdict needs a terminal; pipe sessions settle); waits settle"})
	case exactVerdict != VerdictExact:
		cases = append(cases, verdictCase{"default", Target{Root: self}, ErrNoVerdict, noExact})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var x Inspector
			defer x.Close()
			for _, via := range []struct {
				name    string
				inspect func(Target) (Probe, error)
			}{{"Inspect", Inspect}, {"Inspector", x.Inspect}} {
				p, err := via.inspect(tc.target)
				if !errors.Is(err, tc.err) || p != (Probe{State: Running, Detail: tc.detail}) {
					t.Errorf("%s = %+v, %v; want Running %q, %v", via.name, p, err, tc.detail, tc.err)
				}
			}
		})
	}
	t.Run("names", func(t *testing.T) {
		for v, want := range []string{"default", "exact", "inferred", "settle", "verdict(4)"} {
			if got := Verdict(v).String(); got != want {
				t.Errorf("Verdict(%d) = %q, want %q", v, got, want)
			}
		}
	})
}
