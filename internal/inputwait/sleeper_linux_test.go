//go:build linux && (amd64 || arm64)

package inputwait

import "testing"

// TestInspect_SleepingMember: without job control a script's background
// job shares the script's process group. A member asleep in a timed sleep
// is not working, so another member's read of the input is the verdict;
// with no reader the sleeper is what the program waits for, and a member
// blocked on anything else (a socket) still counts as running.
func TestInspect_SleepingMember(t *testing.T) {
	t.Parallel()
	accept := `python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); s.accept()'`
	for _, tc := range []struct {
		name, script string
		want         State
		detail       string
	}{
		{"background sleep, then read", "sleep 60 & read x", AwaitingInput, "(sh) in read on fd 0"},
		{"two background sleeps, then read", "sleep 60 & sleep 61 & read x", AwaitingInput, "(sh) in read on fd 0"},
		{"foreground sleep, then read", "sleep 60; read x", Running, "(sleep) is blocked in clock_nanosleep, not on the input"},
		{"background sleep, foreground sleep", "sleep 60 & sleep 61; read x", Running, "(sleep) is blocked in clock_nanosleep, not on the input"},
		{"background accept, then read", accept + " & read x", Running, "(python3) is blocked in accept"},
	} {
		for _, mode := range []struct {
			name  string
			start func(testing.TB, ...string) *child
		}{{"pty", startPTY}, {"pipe", startPipe}} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				c := mode.start(t, "sh", "-c", tc.script)
				waitDetail(t, c.target, tc.want, tc.detail)
				assertStays(t, c.target, tc.want)
			})
		}
	}
}
