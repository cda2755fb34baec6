package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// kinds are the shells the tests run against; each case starts with
// needShell, so a missing shell shows as a skipped case.
func kinds(t *testing.T) []string { return []string{"bash", "sh", "zsh"} }

// needShell skips the (sub)test when the shell kind is not installed.
func needShell(t *testing.T, kind string) {
	t.Helper()
	if _, err := exec.LookPath(kind); err != nil {
		t.Skipf("%s not installed (as root, scripts/test installs it): %v", kind, err)
	}
}

// Nothing is left on disk: the rc files go once the shell has started and
// each command file once the shell has started that command, also when the
// shell dies. Terminating a shell at its prompt hangs it up (it ignores
// SIGTERM), so it does not wait for the SIGKILL grace.
func TestShell_NoFilesLeftAndPromptTermination(t *testing.T) {
	gone := func(t *testing.T, p string) {
		t.Helper()
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s still exists: %v", p, err)
		}
	}
	for _, kind := range kinds(t) {
		t.Run(kind, func(t *testing.T) {
			needShell(t, kind)
			mgr := session.NewManager(session.Config{})
			defer mgr.Close()
			ctx := context.Background()
			reg := NewRegistry(mgr)

			sh, _, err := reg.Open(ctx, OpenOptions{Shell: kind, NoRC: true})
			if err != nil {
				t.Fatal(err)
			}
			gone(t, sh.startDir)
			r, err := sh.Exec(ctx, "echo hi", ExecOptions{})
			if err != nil || r.Output != "hi\n" {
				t.Fatalf("exec: %+v %v", r, err)
			}
			gone(t, sh.run.file)
			r, err = sh.Exec(ctx, "sleep 30", ExecOptions{Timeout: 100 * time.Millisecond})
			if err != nil || !r.Running {
				t.Fatalf("sleep: %+v %v", r, err)
			}
			// Running, the shell has the command already; the file is gone.
			sh.mu.Lock()
			started := sh.run.outStart >= 0
			sh.mu.Unlock()
			if started {
				gone(t, sh.run.file)
			}
			if kind == "sh" {
				// dash is killed outright, the command still running.
				if _, err := sh.Session().Terminate(ctx, 0); err != nil {
					t.Fatal(err)
				}
				if r, err := sh.Await(ctx, ExecOptions{}); err != nil || !r.ShellExited {
					t.Fatalf("await after kill: %+v %v", r, err)
				}
				gone(t, sh.run.file)
				return
			}
			// Ctrl+C reaches the terminal's foreground group: until the
			// shell has handed the terminal to sleep (under load that can
			// be after the 100 ms above), it would reach the shell instead.
			waitForeground(t, sh.Session(), "sleep")
			if _, err := sh.Session().Send(session.Input{Keys: []string{"ctrl+c"}}, time.Now().Add(5*time.Second)); err != nil {
				t.Fatal(err)
			}
			if r, err := sh.Await(ctx, ExecOptions{}); err != nil || r.ExitCode == nil || *r.ExitCode != 130 {
				t.Fatalf("await after ctrl+c: %+v %v", r, err)
			}
			st, err := sh.Session().Terminate(ctx, 30*time.Second)
			// The hang-up ends it: bash dies of SIGHUP, zsh's handler
			// exits with the signal's number. SIGTERM alone would leave
			// it to the grace period's SIGKILL.
			want := record.ExitStatus{Code: -1, Signal: "SIGHUP"}
			if kind == "zsh" {
				want = record.ExitStatus{Code: 1}
			}
			if err != nil || st != want {
				t.Fatalf("terminate: %+v %v, want %+v (the hang-up, not a SIGKILL)", st, err, want)
			}
			if _, err := sh.Exec(ctx, "true", ExecOptions{}); !errors.Is(err, ErrShellExited) {
				t.Fatalf("exec after exit: %v", err)
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
// the command's prompt, which is the only way the command can finish. The
// echo of the typed answer is left out of the output, as reads leave it
// out, and the prompt it followed keeps its line.
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
	if err != nil || r.ExitCode == nil || *r.ExitCode != 0 || r.Output != "ready?\ngot go\n" {
		t.Fatalf("exec: %+v %v (hook saw %q)", r, err, seen)
	}
	if len(seen) == 0 || !strings.HasPrefix(seen[0], "ready?") {
		t.Fatalf("hook saw %q", seen)
	}
}

// waitForeground waits until comm leads the terminal's foreground process
// group of s; the kernel has no event for that, so it looks every
// millisecond until a deadline.
func waitForeground(t *testing.T, s *session.Session, comm string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, err := s.Foreground()
		if err == nil && f.Comm == comm {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became the foreground process: %+v %v", comm, f, err)
		}
		time.Sleep(time.Millisecond)
	}
}
