package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/session"
)

// gated is a client connected to a server with a policy and an audit log.
type gated struct {
	*client
	auditPath string
}

func newGated(t *testing.T, rules policy.Rules, cfg session.Config, o Options, co *mcp.ClientOptions, cso ...*mcp.ClientSessionOptions) *gated {
	t.Helper()
	return newGatedTB(t, rules, cfg, o, co, cso...)
}

func newGatedTB(t testing.TB, rules policy.Rules, cfg session.Config, o Options, co *mcp.ClientOptions, cso ...*mcp.ClientSessionOptions) *gated {
	t.Helper()
	dir := t.TempDir()
	a, err := audit.Open(filepath.Join(dir, "audit"), &audit.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(policy.Options{Rules: rules, Protected: []string{filepath.Join(dir, "config")}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnExit = RecordExit(a, cfg.OnExit)
	mgr := session.NewManager(cfg)
	o.Policy, o.Audit = p, a
	var sessOpts *mcp.ClientSessionOptions
	if len(cso) > 0 {
		sessOpts = cso[0]
	}
	c := connect(t, mgr, New(mgr, withEngine(mgr, &o)), "test", co, sessOpts, func() { a.Close() })
	return &gated{client: c, auditPath: a.Path()}
}

// events reads the audit log; every line must be complete JSON.
func (g *gated) events() []audit.Event {
	g.t.Helper()
	out, err := audit.ReadFile(g.auditPath)
	if err != nil {
		g.t.Fatal(err)
	}
	return out
}

func (g *gated) find(event, session string) (audit.Event, bool) {
	for _, e := range g.events() {
		if e.Event == event && (session == "" || e.Session == session) {
			return e, true
		}
	}
	return audit.Event{}, false
}

var allowGitLsPython = policy.Rules{Allow: []string{"git", "ls", "python3", "bash", "cat"}}

func TestStartProcess_PolicyDecides(t *testing.T) {
	g := newGated(t, allowGitLsPython, session.Config{}, Options{}, nil)
	cases := []struct {
		name string
		args map[string]any
		want []string // in the tool error; nil means allowed
	}{
		{"allowed command", map[string]any{"command": "ls / | cat", "mode": "pipe"}, nil},
		{"allowed argv", map[string]any{"argv": []string{"python3", "-c", "print(6*7)"}, "mode": "pipe"}, nil},
		{"chain", map[string]any{"command": "ls; rm -rf x"}, []string{"rm is not on the allow list", "rule allow"}},
		{"substitution", map[string]any{"command": "ls $(touch x)"}, []string{"touch", "rule allow"}},
		{"argv", map[string]any{"argv": []string{"/bin/rm", "x"}}, []string{"/bin/rm", "rule allow"}},
		{"sh -c in argv", map[string]any{"argv": []string{"bash", "-c", "ls && rm x"}}, []string{"rm is not on the allow list"}},
		{"eval", map[string]any{"command": "eval ls"}, []string{"eval", "rule undecidable"}},
		{"env", map[string]any{"argv": []string{"ls"}, "env": map[string]string{"LD_PRELOAD": "/tmp/x.so"}}, []string{"LD_PRELOAD", "rule env"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == nil {
				r := g.start(tc.args)
				if r.SessionID == "" {
					t.Fatal("no session")
				}
				return
			}
			msg := g.toolError("start_process", tc.args)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Fatalf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
	var refusals int
	for _, e := range g.events() {
		if e.Event == audit.EventRefusal {
			refusals++
			if e.Rule == "" || e.Reason == "" || e.Command == "" || e.Client != "stdio" {
				t.Fatalf("incomplete refusal event %+v", e)
			}
		}
	}
	if refusals != 6 {
		t.Fatalf("%d refusal events, want 6", refusals)
	}
	if e, ok := g.find(audit.EventStart, "s1"); !ok || e.Command != "ls / | cat" || e.PID == 0 {
		t.Fatalf("start event %+v", e)
	}
	var pol PolicyResult
	res := g.call("get_policy", map[string]any{}, &pol)
	if !pol.Enabled || strings.Join(pol.Rules.Allow, ",") != "git,ls,python3,bash,cat" || len(pol.Protected) == 0 ||
		!strings.Contains(text(res), "allow: [git ls python3 bash cat]") {
		t.Fatalf("get_policy: %+v %q", pol, text(res))
	}
}

// TestSendInput_ShellPromptIsChecked types into an interactive bash: command
// lines go through the policy; input to a program running in the shell
// (python3) does not; a secret typed at read -s is redacted in the audit log.
func TestSendInput_ShellPromptIsChecked(t *testing.T) {
	g := newGated(t, allowGitLsPython, session.Config{}, Options{}, nil)
	r := g.start(map[string]any{"argv": []string{"bash", "--norc", "--noprofile"}, "env": map[string]string{"PS1": "$ "}})
	if r.State != "awaiting_input" {
		t.Fatalf("bash state %s", r.State)
	}
	id := r.SessionID
	send := func(args map[string]any) (SendResult, string) {
		t.Helper()
		args["session_id"] = id
		var out SendResult
		res, err := g.try("send_input", args, &out)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			return out, text(res)
		}
		return out, ""
	}
	refusals := []struct {
		name string
		args map[string]any
		want string
	}{
		{"refused command", map[string]any{"text": "rm -rf /tmp/nothing-here", "enter": true}, "rm is not on the allow list"},
		{"alias", map[string]any{"text": "alias ls='rm -rf x'", "enter": true}, "alias"},
		{"partial line", map[string]any{"text": "rm -rf x #"}, "partial command line"},
		{"history key", map[string]any{"keys": []string{"up"}, "enter": true}, `key "up"`},
		{"control chars", map[string]any{"text": "\x12rm", "enter": true}, "control characters"},
		{"multi-line", map[string]any{"text": "ls\nrm x\n"}, "rm is not on the allow list"},
		{"line left open after a newline", map[string]any{"text": "ls\nls"}, "partial command line"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			_, msg := send(tc.args)
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, "refused by policy") {
				t.Fatalf("got %q, want a refusal mentioning %q", msg, tc.want)
			}
		})
	}
	out, msg := send(map[string]any{"text": "ls / >/dev/null && echo listed-ok", "enter": true})
	if msg != "" || !strings.Contains(out.Output, "listed-ok") {
		t.Fatalf("allowed command: %q %q", msg, out.Output)
	}
	// python3 in the foreground reads its own input: not a shell command line.
	// Starting it may take longer than the default settle on a loaded
	// machine (a pyenv shim is a bash script): only its prompt ends the wait.
	slow := func(args map[string]any) map[string]any {
		args["settle_ms"], args["timeout_ms"] = 30000, 30000
		return args
	}
	if out, msg = send(slow(map[string]any{"text": "python3 -q", "enter": true})); msg != "" || out.State != "awaiting_input" {
		t.Fatalf("python3: %q %+v", msg, out)
	}
	if out, msg = send(map[string]any{"text": "import os; print('py', 6*7)", "enter": true}); msg != "" || !strings.Contains(out.Output, "py 42") {
		t.Fatalf("python input: %q %q", msg, out.Output)
	}
	if _, msg = send(map[string]any{"keys": []string{"ctrl+d"}}); msg != "" {
		t.Fatalf("ctrl+d: %q", msg)
	}
	// At the shell's own read -s, text could be a secret or a command line.
	if out, msg = send(map[string]any{"text": "read -rs secret; echo got-${#secret}", "enter": true}); msg != "" || out.State != "awaiting_password" {
		t.Fatalf("read -s: %q %+v", msg, out)
	}
	if _, msg = send(map[string]any{"text": "hunter1", "enter": true}); !strings.Contains(msg, "echo off") || strings.Contains(msg, "hunter1") {
		t.Fatalf("text at the shell's read -s: %q", msg)
	}
	if out, msg = send(map[string]any{"keys": []string{"ctrl+c"}}); msg != "" || out.State != "awaiting_input" {
		t.Fatalf("ctrl+c: %q %+v", msg, out)
	}
	// A program's password prompt reads a secret: not checked, and redacted.
	if out, msg = send(slow(map[string]any{"text": "python3 -q -c 'import getpass; print(\"got\", len(getpass.getpass(\"pw: \")))'", "enter": true})); msg != "" || out.State != "awaiting_password" {
		t.Fatalf("getpass: %q %+v", msg, out)
	}
	if out, msg = send(map[string]any{"text": "hunter2", "enter": true}); msg != "" || !strings.Contains(out.Output, "got 7") {
		t.Fatalf("secret: %q %q", msg, out.Output)
	}
	var redacted, typed bool
	for _, e := range g.events() {
		if strings.Contains(e.Input+e.Command+e.Reason, "hunter") {
			t.Fatalf("secret in the audit log: %+v", e)
		}
		redacted = redacted || (e.Event == audit.EventInput && e.Redacted && e.Input == "[redacted 7 bytes] [enter]")
		typed = typed || (e.Event == audit.EventInput && e.Input == "python3 -q [enter]")
	}
	if !redacted || !typed {
		t.Fatalf("input events: redacted=%v typed=%v", redacted, typed)
	}
}

// TestStartProcess_Confirmation drives confirm rules with real SDK clients:
// one that accepts, one that declines, one without elicitation support.
func TestStartProcess_Confirmation(t *testing.T) {
	rules := policy.Rules{Confirm: []string{"python3"}}
	answer := func(action string) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !strings.Contains(req.Params.Message, "python3 -c print(1)") || !strings.Contains(req.Params.Message, "confirm list") {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			return &mcp.ElicitResult{Action: action}, nil
		}}
	}
	args := map[string]any{"argv": []string{"python3", "-c", "print(1)"}, "mode": "pipe"}
	// The newest protocol answers through multi-round-trip input requests;
	// older ones through a server-initiated elicitation/create.
	for _, version := range []string{"", "2025-06-18"} {
		cso := &mcp.ClientSessionOptions{ProtocolVersion: version}
		t.Run("accept/"+version, func(t *testing.T) {
			g := newGated(t, rules, session.Config{}, Options{}, answer("accept"), cso)
			r := g.start(args)
			if r.State != "exited" || strings.TrimSpace(r.Output) != "1" {
				t.Fatalf("%+v", r)
			}
			if e, ok := g.find(audit.EventConfirm, ""); !ok || e.Reason != "accept" || e.Rule != policy.RuleConfirm {
				t.Fatalf("confirm event %+v", e)
			}
			g.start(map[string]any{"argv": []string{"ls"}, "mode": "pipe"}) // not on the confirm list: no question
		})
		t.Run("decline/"+version, func(t *testing.T) {
			g := newGated(t, rules, session.Config{}, Options{}, answer("decline"), cso)
			msg := g.toolError("start_process", args)
			if !strings.Contains(msg, `answered "decline"`) || !strings.Contains(msg, "rule confirm") {
				t.Fatal(msg)
			}
			if len(g.mgr.List()) != 0 {
				t.Fatal("a declined command started")
			}
		})
		t.Run("no elicitation/"+version, func(t *testing.T) {
			g := newGated(t, rules, session.Config{}, Options{}, nil, cso)
			msg := g.toolError("start_process", args)
			if !strings.Contains(msg, "does not support elicitation") || !strings.Contains(msg, "rule confirm") {
				t.Fatal(msg)
			}
		})
	}
	t.Run("unsolicited answer", func(t *testing.T) {
		g := newGated(t, rules, session.Config{}, Options{}, answer("accept"))
		res, err := g.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "start_process", Arguments: args,
			InputResponses: mcp.InputResponseMap{confirmID: &mcp.ElicitResult{Action: "accept"}}, RequestState: "1.forged"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(text(res), "without a matching question") {
			t.Fatalf("forged answer: %s", text(res))
		}
	})
}

// TestLimits_ClearErrors: every limit refuses with a message naming it, and
// the idle timeout ends a session the agent stopped using.
func TestLimits_ClearErrors(t *testing.T) {
	exited := make(chan string, 1) // session ids, after their exit event is in the audit log
	g := newGated(t, policy.Rules{}, session.Config{MaxSessions: 1, MaxInputBytes: 16, IdleTimeout: 3 * time.Second,
		OnExit: func(s *session.Session) { exited <- s.ID }}, Options{MaxReadBytes: 1000}, nil)
	r := g.start(map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0})
	if msg := g.toolError("start_process", map[string]any{"argv": []string{"cat"}}); !strings.Contains(msg, "limit 1") {
		t.Fatal(msg)
	}
	if msg := g.toolError("send_input", map[string]any{"session_id": r.SessionID, "text": strings.Repeat("x", 17)}); !strings.Contains(msg, "at most 16") || !strings.Contains(msg, "max-input-bytes") {
		t.Fatal(msg)
	}
	if msg := g.toolError("read_output", map[string]any{"session_id": r.SessionID, "max_bytes": 1001}); !strings.Contains(msg, "limit of 1000") {
		t.Fatal(msg)
	}
	for _, rule := range []string{"max-sessions", "max-input-bytes"} {
		found := false
		for _, e := range g.events() {
			found = found || (e.Event == audit.EventRefusal && e.Rule == rule)
		}
		if !found {
			t.Fatalf("no refusal event for %s", rule)
		}
	}
	// Idle: wait for the exit the idle timeout causes.
	select {
	case id := <-exited:
		if id != r.SessionID {
			t.Fatalf("session %s exited", id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("idle session not terminated")
	}
	var info InfoResult
	g.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
	if info.EndedBy != session.EndedByIdle || info.Signal != "SIGTERM" {
		t.Fatalf("info %+v", info.SessionInfo)
	}
	e, ok := g.find(audit.EventExit, r.SessionID)
	if !ok || e.Reason != session.EndedByIdle || e.Signal != "SIGTERM" || e.Exit == nil {
		t.Fatalf("exit event %+v (found %v)", e, ok)
	}
}

// TestSendInput_NestedShellIsChecked: a shell that is not the session's
// root (sh -c 'bash; true'), over a PTY and over pipes, still gets its
// command lines checked.
func TestSendInput_NestedShellIsChecked(t *testing.T) {
	g := newGated(t, allowGitLsPython, session.Config{}, Options{}, nil)
	for _, mode := range []string{"pty", "pipe"} {
		t.Run(mode, func(t *testing.T) {
			r := g.start(map[string]any{"command": "bash --norc --noprofile; true", "mode": mode, "until": "\\$ $", "timeout_ms": 3000,
				"env": map[string]string{"PS1": "$ "}})
			msg := g.toolError("send_input", map[string]any{"session_id": r.SessionID, "text": "rm -rf /tmp/not-there", "enter": true})
			if !strings.Contains(msg, "rm is not on the allow list") {
				t.Fatalf("%s: %q (start: %+v)", mode, msg, r)
			}
			var out SendResult
			g.call("send_input", map[string]any{"session_id": r.SessionID, "text": "ls /; echo nested-ok", "enter": true, "until": "^nested-ok"}, &out)
			if !strings.Contains(out.Output, "nested-ok") {
				t.Fatalf("%s: %q %+v", mode, out.Output, out)
			}
		})
	}
}
