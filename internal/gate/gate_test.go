package gate

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
)

// testGate is a gate with a policy, an audit log and a protected directory.
type testGate struct {
	*Gate
	t         *testing.T
	auditPath string
	protected string
}

func newTestGate(t *testing.T, rules policy.Rules, o Options) *testGate {
	t.Helper()
	dir := t.TempDir()
	a, err := audit.Open(filepath.Join(dir, "audit"), &audit.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	protected := filepath.Join(dir, "config")
	p, err := policy.New(policy.Options{Rules: rules, Protected: []string{protected}})
	if err != nil {
		t.Fatal(err)
	}
	o.Policy, o.Audit = p, a
	return &testGate{Gate: New(o), t: t, auditPath: a.Path(), protected: protected}
}

// events reads the audit log; every line must be complete JSON.
func (g *testGate) events() []audit.Event {
	g.t.Helper()
	out, err := audit.ReadFile(g.auditPath)
	if err != nil {
		g.t.Fatal(err)
	}
	return out
}

// only returns the single audit event, failing unless there is exactly one.
func (g *testGate) only() audit.Event {
	g.t.Helper()
	ev := g.events()
	if len(ev) != 1 {
		g.t.Fatalf("%d audit events, want 1: %+v", len(ev), ev)
	}
	return ev[0]
}

// confirmer answers every question with answer (or err) and keeps the
// questions it was asked.
type confirmer struct {
	answer Answer
	err    error
	asked  []Question
}

func (c *confirmer) Confirm(_ context.Context, q Question) (Answer, error) {
	c.asked = append(c.asked, q)
	return c.answer, c.err
}

// wantRefusal fails unless err is a policy refusal with exactly msg.
func wantRefusal(t *testing.T, err error, msg string) {
	t.Helper()
	if !errors.Is(err, policy.ErrRefused) || err.Error() != msg {
		t.Fatalf("got %v, want the refusal %q", err, msg)
	}
}
