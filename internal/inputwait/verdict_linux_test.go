//go:build linux && (amd64 || arm64)

package inputwait

import (
	"errors"
	"testing"
)

// TestInspect_VerdictOnLinux: Linux's own verdict is the exact one, so a
// target that names none and one that asks for it are judged alike; a
// target that asks to settle gets no verdict even while the program plainly
// waits for input, on a PTY and on a pipe.
func TestInspect_VerdictOnLinux(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		start func(testing.TB, ...string) *child
	}{{"pty", startPTY}, {"pipe", startPipe}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := tc.start(t, "sh", "-c", "read x; sleep 30")
			want := waitDetail(t, c.target, AwaitingInput, "(sh) in read on fd 0")
			for _, via := range []struct {
				name    string
				inspect func(Target) (Probe, error)
			}{{"Inspect", Inspect}, {"Inspector", c.insp.Inspect}} {
				for _, v := range []Verdict{VerdictDefault, VerdictExact} {
					target := c.target
					target.Verdict = v
					if p, err := via.inspect(target); err != nil || p != want {
						t.Errorf("%s %v = %+v, %v; want %+v", via.name, v, p, err, want)
					}
				}
				target := c.target
				target.Verdict = VerdictSettle
				p, err := via.inspect(target)
				if !errors.Is(err, ErrNoVerdict) || p != (Probe{State: Running, Detail: "no input-wait verdict (settle strategy); waits settle"}) {
					t.Errorf("%s settle = %+v, %v; want Running and ErrNoVerdict", via.name, p, err)
				}
			}
		})
	}
}
