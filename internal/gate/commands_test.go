package gate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/audit"
	"github.com/agentty/agentty/internal/policy"
	"github.com/agentty/agentty/internal/session"
)

var stdio = Caller{Client: "stdio"}

// TestCommand_Decides: scripts, argv, environments and hosts pass the
// policy or are refused naming the rule; an admitted command is audited as
// an exec event, a refused one as a refusal, never both.
func TestCommand_Decides(t *testing.T) {
	rules := policy.Rules{Allow: []string{"ls", "echo", "git"}}
	cases := []struct {
		name    string
		cmd     Command
		refusal string // "" means admitted
		audited string // the command as the audit log names it
	}{
		{"script", Command{Tool: "exec_command", Session: "s1", Script: "ls -l | git log", Cwd: "/tmp"}, "", "ls -l | git log"},
		{"argv", Command{Tool: "run_command", Argv: []string{"echo", "a;b", "$(x)"}}, "", "echo a;b $(x)"},
		{"script refused", Command{Tool: "exec_command", Session: "s1", Script: "ls && rm -rf x"},
			"refused by policy: rm is not on the allow list [ls echo git] (rule allow)", "ls && rm -rf x"},
		{"substitution refused", Command{Tool: "exec_command", Session: "s1", Script: "echo $(touch y)"},
			"refused by policy: touch is not on the allow list [ls echo git] (rule allow)", "echo $(touch y)"},
		{"argv refused", Command{Tool: "run_command", Argv: []string{"/bin/rm", "-f", "z"}},
			`refused by policy: /bin/rm is not on the allow list [ls echo git]; to allow it, add "rm" (any rm in a PATH directory) or "/bin/rm" to allow (rule allow)`, "/bin/rm -f z"},
		{"env refused", Command{Tool: "run_command", Argv: []string{"ls"}, Env: map[string]string{"LD_PRELOAD": "/tmp/x.so"}},
			"refused by policy: setting LD_PRELOAD changes which program runs or injects code into it; it cannot be set while a command policy is on (rule env)", "ls"},
		{"host admitted", Command{Tool: "run_command", Argv: []string{"ls"}, Host: "u@h"}, "", "ls (on u@h)"},
		{"host refused", Command{Tool: "exec_command", Script: "rm x", Host: "u@h"},
			"refused by policy: rm is not on the allow list [ls echo git] (on u@h) (rule allow)", "rm x (on u@h)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newTestGate(t, rules, Options{})
			err := g.Command(context.Background(), Caller{Client: "http 10.0.0.1:5"}, tc.cmd)
			e := g.only()
			if tc.refusal == "" {
				if err != nil {
					t.Fatal(err)
				}
				if e.Event != audit.EventExec || e.Tool != tc.cmd.Tool || e.Session != tc.cmd.Session || e.Command != tc.audited ||
					e.Cwd != tc.cmd.Cwd || e.Client != "http 10.0.0.1:5" {
					t.Fatalf("exec event %+v", e)
				}
				return
			}
			wantRefusal(t, err, tc.refusal)
			if e.Event != audit.EventRefusal || e.Tool != tc.cmd.Tool || e.Command != tc.audited || e.Rule == "" ||
				tc.refusal != "refused by policy: "+e.Reason+" (rule "+e.Rule+")" {
				t.Fatalf("refusal event %+v", e)
			}
		})
	}
}

// TestCommand_InputLimit: a command line over the input limit is refused
// by the limit, naming it, before the policy sees it.
func TestCommand_InputLimit(t *testing.T) {
	g := newTestGate(t, policy.Rules{}, Options{MaxInputBytes: 16})
	long := "echo " + strings.Repeat("x", 12)
	for _, admit := range []func() error{
		func() error {
			return g.Command(context.Background(), stdio, Command{Tool: "exec_command", Session: "s2", Script: long})
		},
		func() error { return g.Start(context.Background(), stdio, Command{Script: long}) },
	} {
		err := admit()
		want := "input too large: the command is 17 bytes; this server takes at most 16 bytes of input per call (flag -max-input-bytes): write a long script to a file with write_file and run the file, or raise -max-input-bytes"
		if !errors.Is(err, session.ErrInputTooLarge) || err.Error() != want {
			t.Fatalf("got %v", err)
		}
	}
	// An argv counts as its words joined by spaces: run_command and
	// start_process with argv are held to the same limit.
	argv := []string{"echo", strings.Repeat("x", 12)}
	for _, admit := range []func() error{
		func() error { return g.Command(context.Background(), stdio, Command{Tool: "run_command", Argv: argv}) },
		func() error { return g.Start(context.Background(), stdio, Command{Argv: argv}) },
	} {
		err := admit()
		want := "input too large: the command line is 17 bytes; this server takes at most 16 bytes of input per call (flag -max-input-bytes): pass big data in a file (write_file) or on stdin instead of as arguments, or raise -max-input-bytes"
		if !errors.Is(err, session.ErrInputTooLarge) || err.Error() != want {
			t.Fatalf("argv: got %v", err)
		}
	}
	if err := g.Command(context.Background(), stdio, Command{Tool: "run_command", Argv: []string{"echo", strings.Repeat("x", 11)}}); err != nil {
		t.Fatalf("argv of 16 bytes: %v", err)
	}
	ev := g.events()
	if len(ev) != 5 || ev[2].Tool != "run_command" || ev[2].Command != "(a command of 17 bytes)" || ev[3].Tool != "start_process" || ev[2].Rule != "max-input-bytes" || ev[0].Rule != "max-input-bytes" || ev[0].Command != "(a command of 17 bytes)" || ev[0].Tool != "exec_command" ||
		ev[0].Session != "s2" || ev[1].Tool != "start_process" || ev[1].Event != audit.EventRefusal {
		t.Fatalf("events %+v", ev)
	}
	if err := g.Command(context.Background(), stdio, Command{Tool: "exec_command", Script: long[:16]}); err != nil {
		t.Fatalf("16 bytes: %v", err)
	}
}

// TestStart_ScriptOrArgv: start_process checks its command when it has
// one, else its argv, and its environment either way; it writes no exec
// event (the start is audited once it happened).
func TestStart_ScriptOrArgv(t *testing.T) {
	g := newTestGate(t, policy.Rules{Allow: []string{"ls"}}, Options{})
	cases := []struct {
		name    string
		cmd     Command
		refusal string
	}{
		{"script wins", Command{Script: "ls", Argv: []string{"rm"}}, ""},
		{"argv", Command{Argv: []string{"rm", "x"}}, "refused by policy: rm is not on the allow list [ls] (rule allow)"},
		{"script refused", Command{Script: "rm x", Argv: []string{"ls"}}, "refused by policy: rm is not on the allow list [ls] (rule allow)"},
		{"env", Command{Script: "ls", Env: map[string]string{"PATH": "/tmp"}}, "refused by policy: setting PATH changes which program runs or injects code into it; it cannot be set while a command policy is on (rule env)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := g.Start(context.Background(), stdio, tc.cmd)
			if tc.refusal == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRefusal(t, err, tc.refusal)
		})
	}
	for _, e := range g.events() {
		if e.Event != audit.EventRefusal || e.Tool != "start_process" {
			t.Fatalf("event %+v", e)
		}
	}
}

// TestShell_ProgramAndHost: open_shell's program passes the policy; on a
// host it is named as given and the host is named in the refusal.
func TestShell_ProgramAndHost(t *testing.T) {
	g := newTestGate(t, policy.Rules{Allow: []string{"/bin/bash", "bash"}}, Options{})
	ctx := context.Background()
	if err := g.Shell(ctx, stdio, "/bin/bash", nil, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := g.Shell(ctx, stdio, "bash", nil, "", "u@h"); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, g.Shell(ctx, stdio, "/bin/sh", nil, "", ""), `refused by policy: /bin/sh is not on the allow list [/bin/bash bash]; to allow it, add "sh" (any sh in a PATH directory) or "/bin/sh" to allow (rule allow)`)
	wantRefusal(t, g.Shell(ctx, stdio, "sh", nil, "/srv", "u@h"), "refused by policy: sh is not on the allow list [/bin/bash bash] (on u@h) (rule allow)")
	wantRefusal(t, g.Shell(ctx, stdio, "bash", map[string]string{"LD_PRELOAD": "x"}, "", ""), "refused by policy: setting LD_PRELOAD changes which program runs or injects code into it; it cannot be set while a command policy is on (rule env)")
	ev := g.events()
	if len(ev) != 3 || ev[0].Command != "/bin/sh" || ev[1].Command != "sh (on u@h)" || ev[1].Cwd != "/srv" || ev[2].Rule != policy.RuleEnv {
		t.Fatalf("events %+v", ev)
	}
	for _, e := range ev {
		if e.Tool != "open_shell" || e.Event != audit.EventRefusal {
			t.Fatalf("event %+v", e)
		}
	}
}

// TestWrite_ProtectedPaths: write_file targets in a protected directory
// are refused with the policy off or on; other paths pass; a remote path is
// checked the same way with the host named.
func TestWrite_ProtectedPaths(t *testing.T) {
	for _, rules := range []policy.Rules{{}, {Allow: []string{"ls"}}} {
		t.Run(fmt.Sprintf("allow=%v", rules.Allow), func(t *testing.T) {
			g := newTestGate(t, rules, Options{})
			ctx := context.Background()
			in := filepath.Join(g.protected, "config.toml")
			sneaky := filepath.Join(g.protected, "..", "config", "x")
			out := filepath.Join(t.TempDir(), "notes.txt")
			if err := g.Write(ctx, stdio, "", out, ""); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			for _, p := range []string{in, sneaky, g.protected} {
				if err := g.Write(ctx, stdio, "s3", p, ""); !errors.Is(err, policy.ErrRefused) || !strings.Contains(err.Error(), "(rule protected)") {
					t.Fatalf("%s: %v", p, err)
				}
			}
			if err := g.Write(ctx, stdio, "s3", in, "u@h"); !errors.Is(err, policy.ErrRefused) || err.Error() != "refused by policy: "+in+" is under agentty's configuration or audit directory, which agents may not touch (on u@h) (rule protected)" {
				t.Fatalf("remote %s: %v", in, err)
			}
			ev := g.events()
			if len(ev) != 4 || ev[0].Command != "write_file "+in || ev[0].Cwd != g.protected || ev[0].Tool != "write_file" || ev[0].Session != "s3" ||
				ev[3].Command != "write_file "+in+" (on u@h)" {
				t.Fatalf("events %+v", ev)
			}
		})
	}
	t.Run("no policy", func(t *testing.T) {
		g := New(Options{})
		if err := g.Write(context.Background(), stdio, "", "/etc/agentty/config.toml", ""); err != nil {
			t.Fatal(err)
		}
	})
}
