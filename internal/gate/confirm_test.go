package gate

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
)

// TestConfirm_Answers: a confirm rule asks the caller's Confirmer the
// question about exactly this command; only "accept" lets it run, every
// answer is audited, and a caller that cannot ask is refused saying why.
func TestConfirm_Answers(t *testing.T) {
	const why = `python3 is on the confirm list (entry "python3") (rule confirm)`
	errAsk := errors.New("input required from the client")
	cases := []struct {
		name      string
		confirmer Confirmer // nil: the caller has none
		refusal   string    // "" means it runs
		err       error     // passed through as it is
		answer    string    // the audited answer; "" means no confirm event
	}{
		{name: "accept", confirmer: &confirmer{answer: Accept}, answer: "accept"},
		{name: "decline", confirmer: &confirmer{answer: "decline"}, answer: "decline",
			refusal: `refused by policy: the human answered "decline" when asked to confirm (` + why + `); do not retry it, ask the user what to do instead (rule confirm)`},
		{name: "cancel", confirmer: &confirmer{answer: "cancel"}, answer: "cancel",
			refusal: `refused by policy: the human answered "cancel" when asked to confirm (` + why + `); do not retry it, ask the user what to do instead (rule confirm)`},
		{name: "unsolicited", confirmer: &confirmer{answer: Unsolicited}, answer: "unsolicited",
			refusal: "refused by policy: a confirmation answer came without a matching question from this server (or it expired), so it did not run; call the tool again to be asked (rule confirm)"},
		{name: "cannot ask", confirmer: &confirmer{err: &CannotAskError{Why: "this client has no human"}},
			refusal: "refused by policy: this command needs a human's confirmation because " + why + ", and this client has no human; ask the user to run it themselves or to change agentty's policy (rule confirm)"},
		{name: "no confirmer",
			refusal: "refused by policy: this command needs a human's confirmation because " + why + ", and nobody can be asked; ask the user to run it themselves or to change agentty's policy (rule confirm)"},
		{name: "ask first", confirmer: &confirmer{err: errAsk}, err: errAsk},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newTestGate(t, policy.Rules{Confirm: []string{"python3"}}, Options{})
			c := Caller{Client: "stdio mcp-session=7", Confirmer: tc.confirmer}
			err := g.Command(context.Background(), c, Command{Tool: "exec_command", Session: "s4", Script: "python3 -c 'print(1)'", Cwd: "/srv"})
			switch {
			case tc.err != nil:
				if err != tc.err {
					t.Fatalf("got %v, want %v as it is", err, tc.err)
				}
			case tc.refusal != "":
				wantRefusal(t, err, tc.refusal)
			case err != nil:
				t.Fatal(err)
			}
			if fc, ok := tc.confirmer.(*confirmer); ok {
				want := Question{Tool: "exec_command", Session: "s4", Command: "python3 -c 'print(1)'", Cwd: "/srv", Rule: policy.RuleConfirm, Reason: `python3 is on the confirm list (entry "python3")`}
				if len(fc.asked) != 1 || fc.asked[0] != want {
					t.Fatalf("asked %+v, want %+v", fc.asked, want)
				}
			}
			var kinds []string
			for _, e := range g.events() {
				kinds = append(kinds, e.Event)
				if e.Event == audit.EventConfirm && (e.Reason != tc.answer || e.Rule != policy.RuleConfirm || e.Command != "python3 -c 'print(1)'" ||
					e.Client != "stdio mcp-session=7" || e.Session != "s4") {
					t.Fatalf("confirm event %+v", e)
				}
			}
			var want []string
			if tc.answer != "" {
				want = append(want, audit.EventConfirm)
			}
			if tc.refusal != "" {
				want = append(want, audit.EventRefusal)
			} else if tc.err == nil {
				want = append(want, audit.EventExec)
			}
			if !slices.Equal(kinds, want) {
				t.Fatalf("events %v, want %v", kinds, want)
			}
		})
	}
}

// TestQuestion_Text: what the human reads names the command, where it
// runs and the rule.
func TestQuestion_Text(t *testing.T) {
	q := Question{Command: "git push", Cwd: "/src", Rule: "confirm_patterns", Reason: `"git push" matches a confirm pattern`}
	if got, want := q.Text(), "An agent wants to run:\n\ngit push\n\nin /src (\"git push\" matches a confirm pattern (rule confirm_patterns)).\nAllow it?"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	q.Cwd = ""
	if got, want := q.Text(), "An agent wants to run:\n\ngit push\n\nin agentty's working directory (\"git push\" matches a confirm pattern (rule confirm_patterns)).\nAllow it?"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
