package gate

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// waitInput waits until s waits for input (or exits) after the last
// input, and returns its state.
func waitInput(t *testing.T, s *session.Session) record.State {
	t.Helper()
	mark := s.LastInput()
	r, err := s.Read(context.Background(), session.Cursor{}, session.WaitOptions{Timeout: 20 * time.Second, Input: &mark}, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Wait.Reason == session.ReasonTimeout {
		t.Fatalf("%s did not wait for input: %+v (output %q)", s.Command, r.Wait, r.Output.Text)
	}
	return r.Wait.State
}

// hasShell fails unless the walk sees an interactive shell in s.
func hasShell(t *testing.T, s *session.Session) {
	t.Helper()
	fg, err := s.Foreground()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(fg.Procs, func(p session.ProcArgs) bool { return policy.IsInteractiveShell(p.Args) }) {
		t.Fatalf("no shell among %+v", fg.Procs)
	}
}

// TestInput_RealProcessTree walks real process trees: the same line is a
// command for bash at its prompt, and input for python3 started from that
// bash; a shell below the root of a pipe session reads every line; an
// exited session is left to Send.
func TestInput_RealProcessTree(t *testing.T) {
	for _, p := range []string{"bash", "python3"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	mgr := session.NewManager(session.Config{})
	t.Cleanup(mgr.Close)
	g := newTestGate(t, policy.Rules{Allow: []string{"ls", "python3", "echo"}}, Options{})
	ctx := context.Background()
	const refusal = "refused by policy: rm is not on the allow list [ls python3 echo] (rule allow)"
	line := Input{Text: "rm -rf /tmp/gate-test-not-there", Enter: true}

	t.Run("pty", func(t *testing.T) {
		s, err := mgr.Start(session.StartOptions{Argv: []string{"bash", "--norc", "--noprofile"}, Env: map[string]string{"PS1": "$ "}})
		if err != nil {
			t.Fatal(err)
		}
		if st := waitInput(t, s); st != "awaiting_input" {
			t.Fatalf("bash: %s", st)
		}
		wantRefusal(t, g.Input(ctx, stdio, s, line), refusal)
		if err := g.Input(ctx, stdio, s, Input{Text: "ls /", Enter: true}); err != nil {
			t.Fatalf("ls at the prompt: %v", err)
		}
		if _, err := s.Send(session.Input{Text: "python3 -q", Enter: true}, time.Now().Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		if st := waitInput(t, s); st != "awaiting_input" {
			t.Fatalf("python3: %s", st)
		}
		if err := g.Input(ctx, stdio, s, line); err != nil {
			t.Fatalf("a line for python3: %v", err)
		}
		wantRefusal(t, g.Input(ctx, stdio, s, Input{Text: "1\nrm x\n"}),
			"refused by policy: python3 reads this input, but lines it does not read would reach the shell unchecked; send one line per call (rule undecidable)")
	})
	t.Run("pipe", func(t *testing.T) {
		s, err := mgr.Start(session.StartOptions{Command: "bash --norc --noprofile; true", Mode: record.ModePipe})
		if err != nil {
			t.Fatal(err)
		}
		if st := waitInput(t, s); st != "awaiting_input" {
			t.Fatalf("sh -c: %s", st)
		}
		hasShell(t, s)
		wantRefusal(t, g.Input(ctx, stdio, s, line), refusal)
		if err := g.Input(ctx, stdio, s, Input{Text: "echo ok", Enter: true}); err != nil {
			t.Fatalf("echo: %v", err)
		}
	})
	t.Run("exited", func(t *testing.T) {
		s, err := mgr.Start(session.StartOptions{Argv: []string{"true"}, Mode: record.ModePipe})
		if err != nil {
			t.Fatal(err)
		}
		if st := waitInput(t, s); st != "exited" {
			t.Fatalf("true: %s", st)
		}
		if err := g.Input(ctx, stdio, s, line); err != nil {
			t.Fatalf("input to an exited session: %v", err)
		}
	})
	refusals := 0
	for _, e := range g.events() {
		if e.Event != "refusal" || e.Tool != "send_input" || e.Session == "" {
			t.Fatalf("event %+v", e)
		}
		refusals++
	}
	if refusals != 3 {
		t.Fatalf("%d refusals audited, want 3", refusals)
	}
}
