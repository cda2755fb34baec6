package session

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/record"
)

func TestResolve_Errors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    StartOptions
		want error
		text string
	}{
		{"neither", StartOptions{}, ErrBadArgs, "exactly one of command"},
		{"both", StartOptions{Command: "ls", Argv: []string{"ls"}}, ErrBadArgs, "exactly one of command"},
		{"mode", StartOptions{Command: "ls", Mode: "tty"}, ErrBadArgs, `mode must be "pty" or "pipe"`},
		{"rows", StartOptions{Command: "ls", Rows: 1001}, ErrBadArgs, "between 1 and 1000"},
		{"argv missing", StartOptions{Argv: []string{"no-such-prog-xyz"}}, ErrCommandNotFound, "not in PATH"},
		{"command missing", StartOptions{Command: "no-such-prog-xyz --flag"}, ErrCommandNotFound, "not in PATH"},
		{"not executable", StartOptions{Argv: []string{file}}, ErrCommandNotFound, "not executable"},
		{"cwd missing", StartOptions{Command: "ls", Cwd: filepath.Join(dir, "nope")}, ErrBadCwd, "does not exist"},
		{"cwd file", StartOptions{Command: "ls", Cwd: file}, ErrBadCwd, "not a directory"},
		{"merge on pty", StartOptions{Command: "ls", MergeStderr: true}, ErrBadArgs, "merge_stderr"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			_, err := resolve(&o, "AGENTTY_SESSION=x/s1")
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.want, tc.text)
			}
		})
	}
}

func TestResolve_Spec(t *testing.T) {
	// Shell builtins, keywords and expansions are left to the shell.
	for _, cmd := range []string{"cd /tmp && ls", "for i in 1; do echo $i; done", "$HOME/x", "FOO=1 env", "echo hi"} {
		o := StartOptions{Command: cmd}
		if _, err := resolve(&o, "AGENTTY_SESSION=x/s1"); err != nil {
			t.Errorf("%q: %v", cmd, err)
		}
	}
	o := StartOptions{Argv: []string{"sh", "-c", "true"}, Mode: record.ModePipe, Env: map[string]string{"PAGER": "less", "X": "1"}}
	sp, err := resolve(&o, "AGENTTY_SESSION=abc/s9")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(sp.Path) || filepath.Base(sp.Path) != "sh" {
		t.Fatalf("path %q", sp.Path)
	}
	for _, kv := range []string{"PAGER=less", "GIT_PAGER=cat", "X=1", "TERM=dumb", "PYTHONUNBUFFERED=1", "AGENTTY_SESSION=abc/s9"} {
		if !slices.Contains(sp.Env, kv) {
			t.Errorf("env lacks %s", kv)
		}
	}
	o = StartOptions{Command: "true"}
	sp, _ = resolve(&o, "AGENTTY_SESSION=abc/s9")
	if !slices.Contains(sp.Env, "TERM=xterm-256color") || o.Rows != DefaultRows || o.Cols != DefaultCols || o.Mode != record.ModePTY {
		t.Fatalf("pty defaults: rows=%d cols=%d mode=%s", o.Rows, o.Cols, o.Mode)
	}
	if slices.ContainsFunc(sp.Env, func(kv string) bool {
		return strings.HasPrefix(kv, "DEBIAN_FRONTEND=") && os.Getenv("DEBIAN_FRONTEND") == ""
	}) {
		t.Fatal("DEBIAN_FRONTEND must not be forced")
	}
}
