package gate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// TestAudit_SessionEvents: a session's start, its inputs (a secret typed
// at a password prompt redacted) and its exit are written as events.
func TestAudit_SessionEvents(t *testing.T) {
	g := newTestGate(t, policy.Rules{}, Options{})
	exited := make(chan struct{})
	mgr := session.NewManager(session.Config{OnExit: RecordExit(g.audit, func(*session.Session) { close(exited) })})
	t.Cleanup(mgr.Close)
	s, err := mgr.Start(session.StartOptions{Argv: []string{"cat"}, Mode: record.ModePipe})
	if err != nil {
		t.Fatal(err)
	}
	g.Started("http 10.0.0.2:9", s)
	g.Typed("stdio", s, Input{Text: "hello", Keys: []string{"ctrl+c", "down"}, Enter: true}, "awaiting_input")
	g.Typed("stdio", s, Input{Text: "hunter2", Enter: true}, "awaiting_password")
	g.Typed("stdio", s, Input{EOF: true}, "running")
	if _, err := s.Send(session.Input{EOF: true}, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("cat did not exit at the end of its input")
	}
	ev := g.events()
	if len(ev) != 5 {
		t.Fatalf("%d events: %+v", len(ev), ev)
	}
	if e := ev[0]; e.Event != audit.EventStart || e.Session != s.ID || e.Client != "http 10.0.0.2:9" || e.Command != s.Command || e.PID != s.PID() ||
		e.Detail["mode"] != "pipe" || e.Detail["argv"] != "cat" {
		t.Fatalf("start %+v", e)
	}
	for i, want := range []struct {
		input    string
		redacted bool
	}{{"hello [keys ctrl+c down] [enter]", false}, {"[redacted 7 bytes] [enter]", true}, {"[eof]", false}} {
		if e := ev[1+i]; e.Event != audit.EventInput || e.Input != want.input || e.Redacted != want.redacted || e.Session != s.ID || e.Client != "stdio" {
			t.Fatalf("input %d: %+v, want %q", i, e, want.input)
		}
	}
	if e := ev[4]; e.Event != audit.EventExit || e.Session != s.ID || e.Exit == nil || *e.Exit != 0 || e.PID != s.PID() {
		t.Fatalf("exit %+v", e)
	}
}

// TestAudit_Optional: without an audit log nothing is written and nothing
// fails; Typed skips even rendering the input.
func TestAudit_Optional(t *testing.T) {
	g := New(Options{Policy: mustPolicy(t, policy.Rules{Allow: []string{"ls"}})})
	if g.Audited() {
		t.Fatal("audited without a log")
	}
	if err := g.Command(context.Background(), stdio, Command{Tool: "exec_command", Script: "ls"}); err != nil {
		t.Fatal(err)
	}
	if err := g.Command(context.Background(), stdio, Command{Tool: "exec_command", Script: "rm x"}); !errors.Is(err, policy.ErrRefused) {
		t.Fatal(err)
	}
	RecordExit(nil, nil)(nil) // a nil log writes nothing and looks at no session
	if !newTestGate(t, policy.Rules{}, Options{}).Audited() {
		t.Fatal("not audited with a log")
	}
}

func mustPolicy(t *testing.T, r policy.Rules) *policy.Policy {
	t.Helper()
	p, err := policy.New(policy.Options{Rules: r, Protected: []string{filepath.Join(t.TempDir(), "config")}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadLimit: max_bytes over the server's limit is refused naming it;
// a read that names no size reads at most the limit.
func TestReadLimit(t *testing.T) {
	cases := []struct {
		maxRead, asked, had, want int // had: ReadOptions.MaxBytes before
		err                       string
	}{
		{maxRead: 0, asked: 1 << 30, had: 0, want: 0},
		{maxRead: 1000, asked: 1001, err: "invalid arguments: max_bytes 1001 is over this server's limit of 1000 bytes per call (max-read-bytes); ask for less and read again from the returned cursor"},
		{maxRead: 1000, asked: 1000, had: 1000, want: 1000},
		{maxRead: 1000, asked: 0, had: 0, want: 1000},
		{maxRead: 1 << 20, asked: 0, had: 0, want: session.DefaultMaxBytes},
		{maxRead: 1 << 20, asked: 5, had: 5, want: 5},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("limit %d asked %d", tc.maxRead, tc.asked), func(t *testing.T) {
			ro := session.ReadOptions{MaxBytes: tc.had}
			err := New(Options{MaxReadBytes: tc.maxRead}).ReadLimit(&ro, tc.asked)
			if tc.err != "" {
				if !errors.Is(err, session.ErrBadArgs) || err.Error() != tc.err {
					t.Fatalf("got %v", err)
				}
				return
			}
			if err != nil || ro.MaxBytes != tc.want {
				t.Fatalf("MaxBytes %d, err %v; want %d", ro.MaxBytes, err, tc.want)
			}
		})
	}
}

// TestLimitOf names the limit behind engine errors, and LimitRefused
// audits it and passes the error on unchanged.
func TestLimitOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w (limit 1)", session.ErrTooManySessions), "max-sessions"},
		{fmt.Errorf("%w: 17 bytes", session.ErrInputTooLarge), "max-input-bytes"},
		{session.ErrBadArgs, ""},
		{nil, ""},
	} {
		if got := LimitOf(tc.err); got != tc.want {
			t.Errorf("LimitOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	g := newTestGate(t, policy.Rules{}, Options{})
	err := fmt.Errorf("%w (limit 1)", session.ErrTooManySessions)
	if got := g.LimitRefused("stdio", "start_process", "", "cat", "max-sessions", err); got != err {
		t.Fatalf("got %v", got)
	}
	if e := g.only(); e.Event != audit.EventRefusal || e.Rule != "max-sessions" || e.Reason != err.Error() || e.Command != "cat" || !strings.HasPrefix(e.Reason, "too many sessions") {
		t.Fatalf("event %+v", e)
	}
}
