package mcpserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

// shellKinds are the shells the exec tests run against. Each case starts
// with needShell, so a shell that is not installed shows as a skipped case
// rather than a shorter table.
func shellKinds(t *testing.T) []string { return []string{"bash", "sh", "zsh"} }

// needShell skips the (sub)test when the shell kind is not installed.
func needShell(t *testing.T, kind string) {
	t.Helper()
	if _, err := exec.LookPath(kind); err != nil {
		t.Skipf("%s not installed (as root, scripts/test installs it): %v", kind, err)
	}
}

func (c *client) openShell(args map[string]any) OpenShellResult {
	c.t.Helper()
	if _, ok := args["no_rc"]; !ok {
		args["no_rc"] = true
	}
	var r OpenShellResult
	c.call("open_shell", args, &r)
	return r
}

func (c *client) exec(sid, command string, extra map[string]any) ExecResult {
	c.t.Helper()
	args := map[string]any{"session_id": sid, "command": command}
	for k, v := range extra {
		args[k] = v
	}
	var r ExecResult
	c.call("exec_command", args, &r)
	return r
}

func code(p *int) string {
	if p == nil {
		return "nil"
	}
	return strconv.Itoa(*p)
}

func TestExecCommand_Cases(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dir with space")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		command string
		output  string
		exit    int
		cwd     string // "" = unchanged from the shell's start
	}{
		{"true", "true", "", 0, ""},
		{"false", "false", "", 1, ""},
		{"echo", "echo hi", "hi\n", 0, ""},
		// The shell itself prints a newline when a job dies of SIGINT.
		{"killed by SIGINT is 130", "sh -c 'kill -INT $$'", "\n", 130, ""},
		{"exit code of a subshell", "(exit 42)", "", 42, ""},
		{"alias defined", "alias greet='echo hello from alias'", "", 0, ""},
		{"alias used", "greet", "hello from alias\n", 0, ""},
		{"function", "f() { echo \"fn:$1\"; }\nf x", "fn:x\n", 0, ""},
		{"heredoc", "cat <<'EOF'\nline 1\n$HOME stays\nEOF", "line 1\n$HOME stays\n", 0, ""},
		{"three lines", "x=1\ny=2\necho $((x + y))", "3\n", 0, ""},
		{"quotes and metacharacters", `printf '%s|%s\n' "a b" '$(no) *'`, "a b|$(no) *\n", 0, ""},
		{"fake marks are output", `printf '\033]133;D;0;aid=deadbeef.1\007\033]7;file:///nowhere\007after\n'; echo '133;D;0'`, "after\n133;D;0\n", 0, ""},
		{"stderr is output too", "echo out; echo err >&2; exit_code=3; (exit $exit_code)", "out\nerr\n", 3, ""},
		{"cd", "cd '" + dir + "'", "", 0, dir},
		{"cwd carries over", "pwd", dir + "\n", 0, dir},
		{"non-interactive env", `echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"`, "cat cat 0\n", 0, dir},
	}
	for _, kind := range shellKinds(t) {
		t.Run(kind, func(t *testing.T) {
			needShell(t, kind)
			c := newClient(t, session.Config{})
			sh := c.openShell(map[string]any{"shell": kind})
			if sh.Shell != kind || sh.Cwd == "" {
				t.Fatalf("open_shell: %+v", sh)
			}
			start := sh.Cwd
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					r := c.exec(sh.SessionID, tc.command, nil)
					want := tc.cwd
					if want == "" {
						want = start
					}
					if r.State != "done" || r.Output != tc.output || r.ExitCode == nil || *r.ExitCode != tc.exit || r.Cwd != want {
						t.Fatalf("exec %q:\n got state=%s exit=%s output=%q cwd=%q\nwant state=done exit=%d output=%q cwd=%q",
							tc.command, r.State, code(r.ExitCode), r.Output, r.Cwd, tc.exit, tc.output, want)
					}
				})
			}
			// What read_output shows of the shell carries no marks.
			var rr ReadResult
			c.call("read_output", map[string]any{"session_id": sh.SessionID, "cursor": 0, "timeout_ms": 0, "max_bytes": 1 << 20}, &rr)
			if strings.Contains(rr.Output, "\x1b") || strings.Contains(rr.Output, "aid=") || !strings.Contains(rr.Output, "hello from alias") {
				t.Fatalf("read_output of the shell: %q", rr.Output)
			}
		})
	}
}

func TestExecCommand_StdinTimeoutInterruptExit(t *testing.T) {
	for _, kind := range shellKinds(t) {
		t.Run(kind, func(t *testing.T) {
			needShell(t, kind)
			c := newClient(t, session.Config{})
			sh := c.openShell(map[string]any{"shell": kind})
			sid := sh.SessionID

			// A command reading stdin returns at once, asking for input.
			r := c.exec(sid, `read -r line; echo "got:$line"`, nil)
			if r.State != "awaiting_input" || !r.Running || r.ExitCode != nil {
				t.Fatalf("read: state=%s running=%v exit=%s output=%q", r.State, r.Running, code(r.ExitCode), r.Output)
			}
			var s SendResult
			c.call("send_input", map[string]any{"session_id": sid, "text": "abc", "enter": true, "timeout_ms": 0}, &s)
			// The echo of the typed line lands in the command's output and
			// is left out there too.
			var a ExecResult
			c.call("await_command", map[string]any{"session_id": sid}, &a)
			if a.State != "done" || a.ExitCode == nil || *a.ExitCode != 0 || a.Output != "got:abc\n" {
				t.Fatalf("await after input: state=%s exit=%s output=%q", a.State, code(a.ExitCode), a.Output)
			}

			// Timeout: the command keeps running and a second one is refused.
			r = c.exec(sid, "echo start; sleep 30; echo never", map[string]any{"timeout_ms": 1500})
			if !r.TimedOut || !r.Running || r.State != "running" || r.ExitCode != nil {
				t.Fatalf("timeout: %+v", r)
			}
			msg := c.toolError("exec_command", map[string]any{"session_id": sid, "command": "echo second"})
			if !strings.Contains(msg, "still running") || !strings.Contains(msg, "ctrl+c") {
				t.Fatalf("second exec while running: %s", msg)
			}
			c.call("send_input", map[string]any{"session_id": sid, "keys": []string{"ctrl+c"}, "timeout_ms": 0}, &s)
			c.call("await_command", map[string]any{"session_id": sid}, &a)
			all := r.Output + a.Output
			if a.State != "done" || a.ExitCode == nil || *a.ExitCode != 130 || !strings.HasPrefix(all, "start\n") || strings.Contains(all, "never") {
				t.Fatalf("after ctrl+c: state=%s exit=%s output=%q", a.State, code(a.ExitCode), all)
			}
			// The shell is usable again.
			if r = c.exec(sid, "echo again", nil); r.Output != "again\n" || *r.ExitCode != 0 {
				t.Fatalf("after interrupt: %+v", r)
			}

			// exit kills the shell; that is reported, and the session is gone.
			r = c.exec(sid, "echo bye; exit 7", nil)
			if r.State != "shell_exited" || r.ShellExitCode == nil || *r.ShellExitCode != 7 || r.Output != "bye\n" {
				t.Fatalf("exit: state=%s shell_exit=%s output=%q", r.State, code(r.ShellExitCode), r.Output)
			}
			msg = c.toolError("exec_command", map[string]any{"session_id": sid, "command": "true"})
			if !strings.Contains(msg, "exited with code 7") {
				t.Fatalf("exec on a dead shell: %s", msg)
			}
		})
	}
}

func TestExecCommand_SetEKillsShell(t *testing.T) {
	c := newClient(t, session.Config{})
	sh := c.openShell(map[string]any{"shell": "bash"})
	r := c.exec(sh.SessionID, "set -e\necho before\nfalse\necho after", nil)
	if r.State != "shell_exited" || r.ShellExitCode == nil || *r.ShellExitCode != 1 || r.Output != "before\n" {
		t.Fatalf("set -e: state=%s shell_exit=%s output=%q", r.State, code(r.ShellExitCode), r.Output)
	}
}

func TestExecCommand_Truncation(t *testing.T) {
	c := newClient(t, session.Config{})
	sh := c.openShell(map[string]any{"shell": "bash"})
	r := c.exec(sh.SessionID, "seq 1 1000", map[string]any{"max_lines": 10})
	// output_bytes counts what the terminal delivered (CR LF line ends).
	want := "1\n2\n3\n4\n5\n[... 990 lines (3862 bytes) omitted ...]\n996\n997\n998\n999\n1000\n"
	if r.Output != want || !r.Truncated || r.OmittedLines != 990 || r.OutputLines != 1000 || r.OutputBytes != 4893 {
		t.Fatalf("seq 1000 max_lines 10: output=%q truncated=%v omitted=%d lines=%d bytes=%d", r.Output, r.Truncated, r.OmittedLines, r.OutputLines, r.OutputBytes)
	}
}

func TestOpenShell_Errors(t *testing.T) {
	c := newClient(t, session.Config{})
	if msg := c.toolError("open_shell", map[string]any{"shell": "fish-like"}); !strings.Contains(msg, "use bash, zsh or sh") {
		t.Fatalf("unsupported shell: %s", msg)
	}
	r := c.start(map[string]any{"argv": []string{"cat"}, "timeout_ms": 0})
	if msg := c.toolError("exec_command", map[string]any{"session_id": r.SessionID, "command": "true"}); !strings.Contains(msg, "open_shell") {
		t.Fatalf("exec in a non-shell session: %s", msg)
	}
	sh := c.openShell(map[string]any{})
	if msg := c.toolError("exec_command", map[string]any{"session_id": sh.SessionID, "command": "  "}); !strings.Contains(msg, "empty") {
		t.Fatalf("empty command: %s", msg)
	}
	if msg := c.toolError("await_command", map[string]any{"session_id": sh.SessionID}); !strings.Contains(msg, "no command") {
		t.Fatalf("await with nothing started: %s", msg)
	}
}

func TestExecCommand_ClearsHalfTypedInput(t *testing.T) {
	for _, kind := range shellKinds(t) {
		t.Run(kind, func(t *testing.T) {
			needShell(t, kind)
			c := newClient(t, session.Config{})
			sh := c.openShell(map[string]any{"shell": kind})
			var s SendResult
			c.call("send_input", map[string]any{"session_id": sh.SessionID, "text": "echo half-typed", "timeout_ms": 0}, &s)
			r := c.exec(sh.SessionID, "echo ok", nil)
			if r.State != "done" || r.Output != "ok\n" || *r.ExitCode != 0 {
				t.Fatalf("after half-typed input: state=%s output=%q exit=%s", r.State, r.Output, code(r.ExitCode))
			}
		})
	}
}

// The user's rc file is read (with set -u, which the integration must
// survive), its banner returned and its aliases usable; its prompt is
// replaced by the integration's.
func TestOpenShell_ReadsUserRC(t *testing.T) {
	home := t.TempDir()
	rc := map[string]string{
		"bash": ".bashrc",
		"zsh":  ".zshrc",
		"sh":   "shrc", // read through $ENV
	}
	for _, kind := range shellKinds(t) {
		t.Run(kind, func(t *testing.T) {
			needShell(t, kind)
			if err := os.WriteFile(filepath.Join(home, rc[kind]), []byte("set -u\necho welcome\nalias ll='echo from-user-rc'\nPS1='custom> '\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := newClient(t, session.Config{})
			env := map[string]string{"HOME": home, "ZDOTDIR": home}
			if kind == "sh" {
				env["ENV"] = filepath.Join(home, "shrc")
			}
			var sh OpenShellResult
			c.call("open_shell", map[string]any{"shell": kind, "env": env}, &sh)
			if sh.Banner != "welcome\n" {
				t.Fatalf("banner %q", sh.Banner)
			}
			if r := c.exec(sh.SessionID, "ll", nil); r.Output != "from-user-rc\n" || *r.ExitCode != 0 {
				t.Fatalf("alias from the user's rc: %+v", r)
			}
		})
	}
}

func TestOpenShell_RCWaitingForInput(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("read -p 'continue? ' x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, session.Config{})
	msg := c.toolError("open_shell", map[string]any{"shell": "bash", "env": map[string]string{"HOME": home}, "timeout_ms": 1000})
	if !strings.Contains(msg, "printed no prompt") || !strings.Contains(msg, "no_rc=true") {
		t.Fatalf("rc waiting for input: %s", msg)
	}
	var rr ReadResult
	c.call("read_output", map[string]any{"session_id": "s1", "timeout_ms": 0}, &rr)
	if rr.Output != "continue? " {
		t.Fatalf("read_output of the stuck shell: %q", rr.Output)
	}
	if msg := c.toolError("exec_command", map[string]any{"session_id": "s1", "command": "true"}); !strings.Contains(msg, "first prompt") {
		t.Fatalf("exec before the first prompt: %s", msg)
	}
	// Answered, the shell reaches its prompt and runs commands.
	var s SendResult
	c.call("send_input", map[string]any{"session_id": "s1", "text": "y", "enter": true, "timeout_ms": 0}, &s)
	var a ExecResult
	deadline := time.Now().Add(30 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatal("the shell did not reach its prompt within 30 s of the answer")
		}
		res, err := c.try("exec_command", map[string]any{"session_id": "s1", "command": "echo ready"}, &a)
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			break
		}
		if !strings.Contains(text(res), "first prompt") {
			t.Fatalf("exec after answering: %s", text(res))
		}
		// The prompt is on its way: wait for more output, not for time.
		c.call("read_output", map[string]any{"session_id": "s1", "timeout_ms": 2000}, &rr)
	}
	if a.Output != "ready\n" || *a.ExitCode != 0 {
		t.Fatalf("exec after answering: %+v", a)
	}
}
