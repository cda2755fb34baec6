package mcpserver

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// gitRepo makes a repository with two commits, a branch, an upstream, and
// staged, modified and untracked files.
func gitRepo(t *testing.T) (repo, remote string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	remote, repo = filepath.Join(root, "remote.git"), filepath.Join(root, "work")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(root, "init", "-q", "--bare", "-b", "main", remote)
	run(root, "init", "-q", "-b", "main", repo)
	write("a.txt", "one\n")
	write("b.txt", "bee\n")
	run(repo, "add", ".")
	run(repo, "commit", "-q", "-m", "first commit")
	run(repo, "remote", "add", "origin", remote)
	run(repo, "push", "-q", "-u", "origin", "main")
	write("a.txt", "one\ntwo\nthree\n")
	run(repo, "commit", "-q", "-am", "second commit")
	run(repo, "branch", "feature")
	write("c.txt", "new\n")
	run(repo, "add", "c.txt")             // staged
	write("b.txt", "bee\nbuzz\n")         // modified
	write("u.txt", "untracked\n")         // untracked
	run(repo, "config", "user.name", "t") // keep later commands quiet
	return repo, remote
}

func TestRunCommand_GitParsers(t *testing.T) {
	repo, remote := gitRepo(t)
	c := newClient(t, session.Config{})
	parsed := func(args ...string) (*Parsed, RunResult) {
		t.Helper()
		r := c.run(map[string]any{"argv": append([]string{"git"}, args...), "cwd": repo, "env": map[string]string{"GIT_CONFIG_GLOBAL": "/dev/null"}})
		if r.Parsed == nil {
			t.Fatalf("git %v: not parsed; stdout %q stderr %q", args, r.Stdout.Text, r.Stderr.Text)
		}
		return r.Parsed, r
	}
	// asJSON renders decoded data with sorted keys; canon does the same to
	// an expected literal, so both compare field by field.
	asJSON := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	canon := func(s string) string {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("bad expected JSON %s: %v", s, err)
		}
		return asJSON(v)
	}
	for _, args := range [][]string{{"status", "--porcelain=v1", "--branch"}, {"status", "--short", "--branch"}} {
		p, _ := parsed(args...)
		want := `{"branch":{"head":"main","upstream":"origin/main","ahead":1,"behind":0},"staged":[{"path":"c.txt","code":"A ","status":"added"}],` +
			`"modified":[{"path":"b.txt","code":" M","status":"modified"}],"untracked":["u.txt"],"conflicted":[],"clean":false}`
		if got := asJSON(p.Data); p.Kind != "git_status" || got != canon(want) {
			t.Fatalf("%v:\n got %s\nwant %s", args, got, want)
		}
		if p.Summary != "on main (upstream origin/main, ahead 1, behind 0): 1 staged, 1 modified, 1 untracked, 0 conflicted" {
			t.Fatalf("summary %q", p.Summary)
		}
	}
	p, _ := parsed("status", "--short")
	if got := asJSON(p.Data); got != canon(`{"staged":[{"path":"c.txt","code":"A ","status":"added"}],"modified":[{"path":"b.txt","code":" M","status":"modified"}],"untracked":["u.txt"],"conflicted":[],"clean":false}`) {
		t.Fatalf("status --short: %s", got)
	}
	p, _ = parsed("log", "--oneline", "-n", "5")
	commits := p.Data.([]any)
	if len(commits) != 2 || commits[0].(map[string]any)["subject"] != "second commit" || commits[1].(map[string]any)["subject"] != "first commit" {
		t.Fatalf("log: %s", asJSON(p.Data))
	}
	p, _ = parsed("branch")
	if got := asJSON(p.Data); got != canon(`[{"name":"feature","current":false},{"name":"main","current":true}]`) {
		t.Fatalf("branch: %s", got)
	}
	p, _ = parsed("branch", "-vv")
	br := p.Data.([]any)
	if m := br[1].(map[string]any); m["name"] != "main" || m["upstream"] != "origin/main" || m["ahead"] != 1.0 || m["subject"] != "second commit" {
		t.Fatalf("branch -vv: %s", asJSON(p.Data))
	}
	p, _ = parsed("branch", "--all")
	if got := asJSON(p.Data); got != canon(`[{"name":"feature","current":false},{"name":"main","current":true},{"name":"remotes/origin/main","current":false,"remote":true}]`) {
		t.Fatalf("branch --all: %s", got)
	}
	p, _ = parsed("diff", "--name-status", "HEAD~1")
	if got := asJSON(p.Data); got != canon(`[{"status":"M","path":"a.txt"},{"status":"M","path":"b.txt"},{"status":"A","path":"c.txt"}]`) {
		t.Fatalf("diff --name-status: %s", got)
	}
	p, _ = parsed("diff", "--name-only", "--cached")
	if got := asJSON(p.Data); got != canon(`["c.txt"]`) {
		t.Fatalf("diff --name-only --cached: %s", got)
	}
	p, _ = parsed("diff", "--stat")
	if got := asJSON(p.Data); got != canon(`{"files":[{"path":"b.txt","changes":1}],"files_changed":1,"insertions":1,"deletions":0}`) {
		t.Fatalf("diff --stat: %s", got)
	}
	p, _ = parsed("diff", "--shortstat", "HEAD~1")
	if got := asJSON(p.Data); got != canon(`{"files_changed":3,"insertions":4,"deletions":0}`) {
		t.Fatalf("diff --shortstat: %s", got)
	}
	p, _ = parsed("rev-parse", "--abbrev-ref", "HEAD")
	if got := asJSON(p.Data); got != canon(`{"ref":"main"}`) {
		t.Fatalf("rev-parse --abbrev-ref: %s", got)
	}
	p, _ = parsed("rev-parse", "--is-inside-work-tree")
	if got := asJSON(p.Data); got != canon(`{"inside_work_tree":true}`) {
		t.Fatalf("rev-parse --is-inside-work-tree: %s", got)
	}
	p, _ = parsed("rev-parse", "--show-toplevel")
	if got := p.Data.(map[string]any)["toplevel"]; got != repo {
		t.Fatalf("rev-parse --show-toplevel: %v", got)
	}
	p, _ = parsed("remote", "-v")
	if got := asJSON(p.Data); got != canon(`[{"name":"origin","fetch":"`+remote+`","push":"`+remote+`"}]`) {
		t.Fatalf("remote -v: %s", got)
	}
	p, _ = parsed("ls-files")
	if got := asJSON(p.Data); got != canon(`["a.txt","b.txt","c.txt"]`) {
		t.Fatalf("ls-files: %s", got)
	}
	// parse_only drops the raw text; summary keeps only the summary.
	r := c.run(map[string]any{"argv": []string{"git", "ls-files"}, "cwd": repo, "parse_only": true})
	if r.Stdout.Text != "" || r.Parsed == nil || r.Stdout.Bytes != 18 {
		t.Fatalf("parse_only: %+v", r)
	}
	r = c.run(map[string]any{"argv": []string{"git", "ls-files"}, "cwd": repo, "summary": true})
	if r.Stdout.Text != "" || r.Parsed != nil || r.Summary != "3 files" {
		t.Fatalf("summary: %+v", r)
	}
	// An unsupported signature is left as text.
	r = c.run(map[string]any{"argv": []string{"git", "log", "--format=%s"}, "cwd": repo})
	if r.Parsed != nil || r.Stdout.Text != "second commit\nfirst commit\n" || r.Hint != "" {
		t.Fatalf("unsupported: %+v", r)
	}
	// With enough output to be worth structure, the agent learns what is supported.
	r = c.run(map[string]any{"argv": []string{"git", "help", "-a"}, "cwd": repo})
	if r.Parsed != nil || !strings.Contains(r.Hint, "no structured parser") || r.Stdout.Bytes < 1024 {
		t.Fatalf("unsupported, long: parsed=%v hint=%q bytes=%d", r.Parsed, r.Hint, r.Stdout.Bytes)
	}
	// A supported command whose output was cut is not parsed, and says so.
	r = c.run(map[string]any{"argv": []string{"git", "log", "--oneline", "--decorate"}, "cwd": repo, "max_output_bytes": 64})
	if r.Parsed != nil || !r.Stdout.Truncated || !strings.Contains(r.Hint, "not parsed") {
		t.Fatalf("supported, cut: parsed=%v truncated=%v hint=%q", r.Parsed, r.Stdout.Truncated, r.Hint)
	}
	p, _ = parsed2(t, c, []string{"which", "sh"})
	if w := p.Data.(map[string]any); w["found"] != true || !reflect.DeepEqual(len(w["paths"].([]any)), 1) {
		t.Fatalf("which: %s", asJSON(p.Data))
	}
}

func parsed2(t *testing.T, c *client, argv []string) (*Parsed, RunResult) {
	t.Helper()
	r := c.run(map[string]any{"argv": argv})
	if r.Parsed == nil {
		t.Fatalf("%v: not parsed: %q", argv, r.Stdout.Text)
	}
	return r.Parsed, r
}
