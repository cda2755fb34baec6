package mcpserver

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

func (c *client) run(args map[string]any) RunResult {
	c.t.Helper()
	var r RunResult
	c.call("run_command", args, &r)
	return r
}

func TestRunCommand_Behaviour(t *testing.T) {
	c := newClient(t, session.Config{})
	dir := t.TempDir()
	cases := []struct {
		name   string
		args   map[string]any
		stdout string
		stderr string
		exit   int
		ok     bool
	}{
		{"metacharacters stay literal", map[string]any{"argv": []string{"echo", "a|b", "$HOME", "*", "; rm -rf /", "`x`", "> f"}},
			"a|b $HOME * ; rm -rf / `x` > f\n", "", 0, true},
		{"stdin payload", map[string]any{"argv": []string{"python3", "-c", "import sys; d=sys.stdin.read(); print(len(d), repr(d))"}, "stdin": "it's \"quoted\"\n$x\n"},
			"17 'it\\'s \"quoted\"\\n$x\\n'\n", "", 0, true},
		{"stderr separate", map[string]any{"argv": []string{"sh", "-c", "echo out; echo err >&2; exit 3"}},
			"out\n", "err\n", 3, false},
		{"success_exit_code", map[string]any{"argv": []string{"sh", "-c", "exit 3"}, "success_exit_code": 3}, "", "", 3, true},
		{"any_exit_code", map[string]any{"argv": []string{"false"}, "any_exit_code": true}, "", "", 1, true},
		{"cwd and env", map[string]any{"argv": []string{"sh", "-c", "pwd; echo $FOO $GIT_PAGER"}, "cwd": dir, "env": map[string]string{"FOO": "bar"}},
			dir + "\nbar cat\n", "", 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.run(tc.args)
			if r.Stdout.Text != tc.stdout || r.Stderr.Text != tc.stderr || r.ExitCode == nil || *r.ExitCode != tc.exit || r.OK != tc.ok || r.TimedOut {
				t.Fatalf("got stdout=%q stderr=%q exit=%s ok=%v checks=%+v\nwant stdout=%q stderr=%q exit=%d ok=%v",
					r.Stdout.Text, r.Stderr.Text, code(r.ExitCode), r.OK, r.Checks, tc.stdout, tc.stderr, tc.exit, tc.ok)
			}
		})
	}
}

func TestRunCommand_TruncationKeepsHeadAndTail(t *testing.T) {
	c := newClient(t, session.Config{})
	// 100000 lines "line N\n": head and tail kept, exact counts.
	r := c.run(map[string]any{"argv": []string{"python3", "-c", "for i in range(100000): print('line', i)"}, "max_output_bytes": 1000})
	total := 0
	for i := range 100000 {
		total += len(fmt.Sprintf("line %d\n", i))
	}
	if r.Stdout.Bytes != int64(total) || r.Stdout.Lines != 100000 || !r.Stdout.Truncated || r.Stdout.OmittedBytes != int64(total-1000) {
		t.Fatalf("counts: bytes=%d lines=%d truncated=%v omitted=%d (want %d bytes, omitted %d)", r.Stdout.Bytes, r.Stdout.Lines, r.Stdout.Truncated, r.Stdout.OmittedBytes, total, total-1000)
	}
	if !strings.HasPrefix(r.Stdout.Text, "line 0\nline 1\n") || !strings.HasSuffix(r.Stdout.Text, "line 99998\nline 99999\n") ||
		!strings.Contains(r.Stdout.Text, fmt.Sprintf("[... %d bytes omitted ...]", total-1000)) {
		t.Fatalf("text: %q", r.Stdout.Text)
	}
}

func TestRunCommand_SuccessFile(t *testing.T) {
	c := newClient(t, session.Config{})
	dir := t.TempDir()
	// A tool that always exits 0 and reports in a log file.
	script := `printf 'compiling\n%s error(s)\n' "$1" > build.log`
	cases := []struct {
		errors string
		ok     bool
	}{{"0", true}, {"2", false}}
	for _, tc := range cases {
		r := c.run(map[string]any{"argv": []string{"sh", "-c", script, "sh", tc.errors}, "cwd": dir,
			"success_file": "build.log", "success_file_pattern": `^0 error`})
		if r.OK != tc.ok || *r.ExitCode != 0 || len(r.Checks) != 2 || r.Checks[1].Name != "success_file" || r.Checks[1].OK != tc.ok {
			t.Fatalf("%s errors: ok=%v checks=%+v", tc.errors, r.OK, r.Checks)
		}
	}
	r := c.run(map[string]any{"argv": []string{"true"}, "cwd": dir, "success_file": "missing.log"})
	if r.OK || !strings.Contains(r.Checks[1].Detail, "no such file") {
		t.Fatalf("missing success file: %+v", r.Checks)
	}
}

func TestRunCommand_Paging(t *testing.T) {
	c := newClient(t, session.Config{})
	for _, tc := range []struct {
		page    int
		first   int
		n       int
		hasNext bool
	}{{0, 1, 100, true}, {2, 201, 50, false}, {3, 0, 0, false}} {
		r := c.run(map[string]any{"argv": []string{"seq", "1", "250"}, "page": tc.page, "page_size": 100})
		var want strings.Builder
		for i := range tc.n {
			fmt.Fprintf(&want, "%d\n", tc.first+i)
		}
		if r.Page == nil || r.Page.TotalLines != 250 || r.Page.HasNext != tc.hasNext || r.Stdout.Text != want.String() {
			t.Fatalf("page %d: page=%+v text=%q", tc.page, r.Page, r.Stdout.Text)
		}
	}
}

func TestRunCommand_TimeoutKillsTree(t *testing.T) {
	c := newClient(t, session.Config{})
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	r := c.run(map[string]any{"argv": []string{"sh", "-c", "sleep 60 & echo $! > " + pidFile + "; echo started; wait"}, "timeout_ms": 1000})
	if !r.TimedOut || r.OK || r.Signal != "SIGKILL" || r.Stdout.Text != "started\n" {
		t.Fatalf("timeout: %+v", r)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/proc/" + strings.TrimSpace(string(b))); err == nil {
		stat, _ := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/stat")
		if !strings.Contains(string(stat), ") Z ") {
			t.Fatalf("background child %s survived the timeout: %s", b, stat)
		}
	}
}

func TestRunCommand_Errors(t *testing.T) {
	c := newClient(t, session.Config{})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"argv": []string{}}, "argv must name a program"},
		{map[string]any{"argv": []string{"cd", "/"}}, "not in PATH"},
		{map[string]any{"argv": []string{"true"}, "cwd": "/nonexistent-dir"}, "not an existing directory"},
		{map[string]any{"argv": []string{"true"}, "success_file_pattern": "x"}, "needs success_file"},
		{map[string]any{"argv": []string{"true"}, "success_file": "f", "success_file_pattern": "("}, "not a valid RE2"},
		{map[string]any{"argv": []string{"true"}, "max_output_bytes": 10}, "max_output_bytes"},
		{map[string]any{"argv": []string{"true"}, "page": -1}, "page must be"},
	} {
		if msg := c.toolError("run_command", tc.args); !strings.Contains(msg, tc.want) {
			t.Fatalf("%v: %s (want %q)", tc.args, msg, tc.want)
		}
	}
}

func TestWriteFile_RelativeToShellCwd(t *testing.T) {
	c := newClient(t, session.Config{})
	dir := t.TempDir()
	sh := c.openShell(map[string]any{"shell": "bash", "cwd": dir})
	c.exec(sh.SessionID, "mkdir sub && cd sub", nil)
	content := "line 'one'\n\"two\" $HOME `x`\n"
	var w WriteFileResult
	c.call("write_file", map[string]any{"session_id": sh.SessionID, "path": "f.txt", "content": content}, &w)
	p := filepath.Join(dir, "sub", "f.txt")
	if w.Path != p || w.Bytes != len(content) || !w.Created {
		t.Fatalf("write: %+v", w)
	}
	c.call("write_file", map[string]any{"session_id": sh.SessionID, "path": "f.txt", "content": "dGFpbAo=", "encoding": "base64", "append": true}, &w)
	r := c.exec(sh.SessionID, "sha256sum f.txt", nil)
	sum := sha256.Sum256([]byte(content + "tail\n"))
	if want := fmt.Sprintf("%x  f.txt\n", sum); r.Output != want || w.Size != int64(len(content)+5) {
		t.Fatalf("after append: %q want %q (size %d)", r.Output, want, w.Size)
	}
	// Replacing keeps the file's mode and swaps the content whole.
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	c.call("write_file", map[string]any{"session_id": sh.SessionID, "path": "f.txt", "content": "new\n"}, &w)
	fi, err := os.Stat(p)
	b, _ := os.ReadFile(p)
	if err != nil || fi.Mode().Perm() != 0o600 || string(b) != "new\n" || w.Created {
		t.Fatalf("replace: mode=%v content=%q created=%v", fi.Mode(), b, w.Created)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temp files left next to the target: %v", entries)
	}
	if msg := c.toolError("write_file", map[string]any{"path": "x", "content": "%%", "encoding": "base64"}); !strings.Contains(msg, "base64") {
		t.Fatalf("bad base64: %s", msg)
	}
}

func TestRetryCommand_UntilSuccess(t *testing.T) {
	c := newClient(t, session.Config{})
	sh := c.openShell(map[string]any{"shell": "bash", "cwd": t.TempDir()})
	// Fails twice, then succeeds: a counter in a file.
	cmd := `n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; echo "try $n"; [ $n -ge 3 ]`
	var r RetryResult
	c.call("retry_command", map[string]any{"session_id": sh.SessionID, "command": cmd, "max_retries": 5, "backoff": "linear", "delay_ms": 10}, &r)
	if !r.Success || r.Attempts != 3 || len(r.History) != 3 || r.Last.Output != "try 3\n" ||
		*r.History[0].ExitCode != 1 || r.History[1].DelayMs != 10 || r.History[2].DelayMs != 20 {
		t.Fatalf("retry: %+v", r)
	}
	// A pattern that never matches uses every retry.
	c.call("retry_command", map[string]any{"session_id": sh.SessionID, "command": "echo nope", "max_retries": 2, "backoff": "fixed", "delay_ms": 1, "success_pattern": "^yes$"}, &r)
	if r.Success || r.Attempts != 3 || *r.History[2].Matched {
		t.Fatalf("never matching: %+v", r)
	}
}

func TestDiffCommands_UnifiedDiff(t *testing.T) {
	c := newClient(t, session.Config{})
	sh := c.openShell(map[string]any{"shell": "bash"})
	var d DiffResult
	c.call("diff_commands", map[string]any{"session_id": sh.SessionID, "command_a": "printf 'a\\nb\\nc\\n'", "command_b": "printf 'a\\nB\\nc\\n'", "context_lines": 1}, &d)
	want := "--- a: printf 'a\\nb\\nc\\n'\n+++ b: printf 'a\\nB\\nc\\n'\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
	if d.Identical || d.Diff != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", d.Diff, want)
	}
	c.call("diff_commands", map[string]any{"session_id": sh.SessionID, "command_a": "echo x", "command_b": "printf 'x\\n'"}, &d)
	if !d.Identical || d.Diff != "" {
		t.Fatalf("identical: %+v", d)
	}
}
