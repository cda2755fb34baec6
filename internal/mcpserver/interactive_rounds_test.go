package mcpserver

import (
	"strings"
	"testing"
)

// acceptBg is a background job blocked on a socket: it keeps the kernel
// from ever saying the script waits for input.
const acceptBg = `python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); s.accept()' & `

// TestRunCommand_InteractiveRounds: a script's background job does not
// hide its prompts. One asleep in a timer is no veto at all; for one the
// kernel cannot see past (blocked on a socket), until or settle_ms end the
// round; without them the run is killed at timeout_ms with a note that
// names them; outside interactive runs they are refused.
func TestRunCommand_InteractiveRounds(t *testing.T) {
	script := func(bg string) []string {
		return []string{"bash", "--norc", "-c", bg + `read -p "name? " a; read -p "color? " b; echo "got $a/$b"`}
	}
	answers := map[string]string{"name?": "alice", "color?": "blue"}
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"background sleep", map[string]any{"argv": script("sleep 60 & ")}},
		{"until", map[string]any{"argv": script(acceptBg), "until": `\? $`}},
		{"settle_ms", map[string]any{"argv": script(acceptBg), "settle_ms": 300}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := &person{answers: answers}
			h := newPersonHarness(t, "", p.options(), Options{})
			tc.args["interactive"], tc.args["timeout_ms"] = true, 15000
			var r RunResult
			h.run("run_command", tc.args, &r)
			if r.ExitCode == nil || *r.ExitCode != 0 || r.Rounds == nil || *r.Rounds != 2 || r.Note != "" {
				t.Fatalf("result %+v", r)
			}
			if !strings.Contains(r.Stdout.Text, "got alice/blue") || len(p.asked) != 2 {
				t.Fatalf("output %q asked %q", r.Stdout.Text, p.asked)
			}
		})
	}
	t.Run("neither", func(t *testing.T) {
		t.Parallel()
		p := &person{answers: answers}
		h := newPersonHarness(t, "", p.options(), Options{})
		var r RunResult
		h.run("run_command", map[string]any{"argv": script(acceptBg), "interactive": true, "timeout_ms": 1000}, &r)
		if r.Signal != "SIGKILL" || r.Rounds == nil || *r.Rounds != 0 || len(p.asked) != 0 ||
			r.Note != "the program ran 1s without asking for input or exiting (timeout_ms; until or settle_ms can end a round); it was killed" {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		h := newPersonHarness(t, "", nil, Options{})
		for _, args := range []map[string]any{
			{"argv": []string{"true"}, "until": "x"},
			{"argv": []string{"true"}, "settle_ms": 100},
		} {
			if msg := h.toolError("run_command", args); !strings.Contains(msg, "max_rounds, mode, until and settle_ms go with interactive: true") {
				t.Errorf("%v: %q", args, msg)
			}
		}
		p := &person{}
		h = newPersonHarness(t, "", p.options(), Options{})
		msg := h.toolError("run_command", map[string]any{"argv": []string{"true"}, "interactive": true, "until": "("})
		if !strings.Contains(msg, "until is not a valid RE2 regex") || len(h.mgr.List()) != 0 {
			t.Errorf("%q", msg)
		}
	})
}
