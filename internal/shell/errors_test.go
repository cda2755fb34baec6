package shell

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// The shell's refusals are typed errors carrying their facts, unwrapping to
// their sentinels, with text that names no front end's tools.
func TestErrors_Typed(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	defer mgr.Close()
	ctx := context.Background()
	reg := NewRegistry(mgr)
	sh, _, err := reg.Open(ctx, OpenOptions{Shell: "bash", NoRC: true})
	if err != nil {
		t.Fatal(err)
	}
	id := sh.Session().ID
	_, noCommand := sh.Await(ctx, ExecOptions{})
	if r, err := sh.Exec(ctx, "sleep 30", ExecOptions{Timeout: 100 * time.Millisecond}); err != nil || !r.Running {
		t.Fatalf("sleep: %+v %v", r, err)
	}
	_, busy := sh.Exec(ctx, "true", ExecOptions{})
	cat, err := mgr.Start(session.StartOptions{Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	_, notShell := reg.Get(cat.ID)
	if _, err := sh.Session().Terminate(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if r, err := sh.Await(ctx, ExecOptions{}); err != nil || !r.ShellExited {
		t.Fatalf("await after kill: %+v %v", r, err)
	}
	_, exited := sh.Exec(ctx, "true", ExecOptions{})

	var b *BusyError
	if !errors.As(busy, &b) || b.Running <= 0 || b.Running != b.Running.Round(time.Millisecond) {
		t.Fatalf("busy: %#v", busy)
	}
	cases := []struct {
		name     string
		err      error
		sentinel error
		want     error
		text     string
	}{
		{"await before any command", noCommand, ErrNoCommand, &NoCommandError{ID: id},
			fmt.Sprintf("no command to wait for: no command was started in session %s", id)},
		{"exec while busy", busy, ErrBusy, &BusyError{ID: id, Command: "sleep 30", Running: b.Running},
			fmt.Sprintf("shell is busy: \"sleep 30\" (started %s ago) is still running in session %s", b.Running, id)},
		{"not a shell", notShell, ErrNotShell, &NotShellError{ID: cat.ID, Command: `"cat"`},
			fmt.Sprintf("not a shell session: session %s runs \"cat\"", cat.ID)},
		{"shell killed", exited, ErrShellExited, &ShellExitedError{ID: id, Status: &record.ExitStatus{Code: -1, Signal: "SIGKILL"}},
			fmt.Sprintf("shell has exited: the shell of session %s was killed by SIGKILL", id)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.sentinel) {
				t.Fatalf("%v is not %v", tc.err, tc.sentinel)
			}
			if tc.err.Error() != tc.text {
				t.Errorf("text %q, want %q", tc.err.Error(), tc.text)
			}
			if !reflect.DeepEqual(tc.err, tc.want) {
				t.Errorf("error %#v, want %#v", tc.err, tc.want)
			}
		})
	}
}
