package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

func kinds(t *testing.T) []string {
	out := []string{"bash", "sh"}
	if _, err := exec.LookPath("zsh"); err == nil {
		out = append(out, "zsh")
	}
	return out
}

// The private directory goes away with the shell, whether it exits by
// itself or is terminated (bash and zsh trap SIGTERM into a prompt exit,
// so terminating them does not wait for the SIGKILL grace).
func TestShell_CleansUpAndTerminatesPromptly(t *testing.T) {
	for _, kind := range kinds(t) {
		t.Run(kind, func(t *testing.T) {
			mgr := session.NewManager(session.Config{})
			defer mgr.Close()
			ctx := context.Background()
			reg := NewRegistry(mgr)

			sh, _, err := reg.Open(ctx, OpenOptions{Shell: kind, NoRC: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(sh.dir); err != nil {
				t.Fatalf("private dir missing while the shell runs: %v", err)
			}
			r, err := sh.Exec(ctx, "exit 0", ExecOptions{})
			if err != nil || !r.ShellExited {
				t.Fatalf("exit: %+v %v", r, err)
			}
			if _, err := os.Stat(sh.dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("private dir after exit: %v", err)
			}
			if _, err := sh.Exec(ctx, "true", ExecOptions{}); !errors.Is(err, ErrShellExited) {
				t.Fatalf("exec after exit: %v", err)
			}

			sh, _, err = reg.Open(ctx, OpenOptions{Shell: kind, NoRC: true})
			if err != nil {
				t.Fatal(err)
			}
			if kind == "sh" {
				// dash runs traps only after its blocking read at the prompt
				// returns, so SIGTERM waits for the grace period's SIGKILL,
				// which no trap sees: the registry removes the directory.
				if _, err := sh.Session().Terminate(ctx, 0); err != nil {
					t.Fatal(err)
				}
				if _, err := reg.Get(sh.Session().ID); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(sh.dir); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("private dir after SIGKILL and a registry lookup: %v", err)
				}
				return
			}
			st, err := sh.Session().Terminate(ctx, 30*time.Second)
			if err != nil || st.Code != 143 || st.Signal != "" {
				t.Fatalf("terminate: %+v %v (want exit 143 from the TERM trap, not a SIGKILL)", st, err)
			}
			if _, err := os.Stat(sh.dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("private dir after terminate: %v", err)
			}
		})
	}
}

// A busy shell refuses a second command with ErrBusy, and the registry
// tells shells from other sessions.
func TestShell_BusyAndNotShell(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	defer mgr.Close()
	ctx := context.Background()
	reg := NewRegistry(mgr)
	sh, _, err := reg.Open(ctx, OpenOptions{Shell: "bash", NoRC: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sh.Exec(ctx, "sleep 30", ExecOptions{Timeout: 200 * time.Millisecond})
	if err != nil || !r.Running || !r.TimedOut {
		t.Fatalf("sleep: %+v %v", r, err)
	}
	if _, err := sh.Exec(ctx, "true", ExecOptions{}); !errors.Is(err, ErrBusy) {
		t.Fatalf("second exec: %v", err)
	}
	s, err := mgr.Start(session.StartOptions{Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Get(s.ID); !errors.Is(err, ErrNotShell) {
		t.Fatalf("get cat: %v", err)
	}
	if got, err := reg.Get(sh.Session().ID); err != nil || got != sh {
		t.Fatalf("get shell: %v", err)
	}
}

// OnOutput sees a running command's output as it arrives: here it answers
// the command's prompt, which is the only way the command can finish.
func TestShell_OnOutputHook(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	defer mgr.Close()
	ctx := context.Background()
	sh, _, err := Open(ctx, mgr, OpenOptions{Shell: "bash", NoRC: true})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	o := ExecOptions{IgnoreInput: true, Timeout: 30 * time.Second, OnOutput: func(_ time.Duration, newest []byte) {
		seen = append(seen, string(newest))
		if strings.Contains(string(newest), "ready?") {
			if _, err := sh.Session().Send(session.Input{Text: "go", Enter: true}, time.Now().Add(5*time.Second)); err != nil {
				t.Error(err)
			}
		}
	}}
	r, err := sh.Exec(ctx, `printf 'ready?'; read -r x; echo "got $x"`, o)
	if err != nil || r.ExitCode == nil || *r.ExitCode != 0 || r.Output != "ready?go\ngot go\n" {
		t.Fatalf("exec: %+v %v (hook saw %q)", r, err, seen)
	}
	if len(seen) == 0 || !strings.HasPrefix(seen[0], "ready?") {
		t.Fatalf("hook saw %q", seen)
	}
}
