package mcpserver

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

// userRC are rc files like a real user's (pyenv and friends): functions,
// a prompt hook that keeps $?, an EXIT trap, an ignored signal, PATH.
var userRC = map[string]struct{ file, text string }{
	"bash": {".bashrc", `export PATH="$HOME/bin:$PATH"
_fake_pyenv_hook() { local ret=$?; FAKE_PYENV_DIR=$PWD; return $ret; }
PROMPT_COMMAND="_fake_pyenv_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
pyenv() { echo "pyenv $*"; }
trap 'rm -f "$HOME/.session-lock"' EXIT
trap '' USR1
`},
	"zsh": {".zshrc", `export PATH="$HOME/bin:$PATH"
_fake_pyenv_hook() { local ret=$?; FAKE_PYENV_DIR=$PWD; return $ret; }
precmd_functions+=(_fake_pyenv_hook)
pyenv() { echo "pyenv $*"; }
trap 'rm -f "$HOME/.session-lock"' EXIT
trap '' USR1
`},
	"sh": {"shrc", `export PATH="$HOME/bin:$PATH"
pyenv() { echo "pyenv $*"; }
trap 'rm -f "$HOME/.session-lock"' EXIT
trap '' USR1
`},
}

// hangupStatus is how each shell ends when its terminal hangs up: bash and
// dash die of SIGHUP; zsh's handler exits with the signal's number.
func hangupStatus(kind string) (code string, signal string) {
	if kind == "zsh" {
		return "1", ""
	}
	return "nil", "SIGHUP"
}

// openTestShell opens a shell of kind, reading the user rc files in home
// unless home is "".
func openTestShell(c *client, kind, home string) string {
	args := map[string]any{"shell": kind}
	if home != "" {
		args["no_rc"] = false
		args["env"] = map[string]string{"HOME": home, "ZDOTDIR": home, "ENV": filepath.Join(home, "shrc")}
	}
	return c.openShell(args).SessionID
}

// terminateTimed terminates a session with a grace period far longer than
// the test allows, so a shell left to the SIGKILL shows.
func terminateTimed(t *testing.T, c *client, sid string) InfoResult {
	t.Helper()
	start := time.Now()
	var info InfoResult
	c.call("terminate_process", map[string]any{"session_id": sid, "grace_ms": 60000}, &info)
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("terminate took %v: the shell waited for the grace period's SIGKILL", took)
	}
	return info
}

// Terminating a shell at its prompt reports how the kernel says it ended,
// the same every time, with or without the user's rc files, and does not
// wait for the grace period: it ignores SIGTERM, so it is hung up.
func TestTerminateProcess_ShellStatus(t *testing.T) {
	const runs = 20
	for _, kind := range shellKinds(t) {
		for _, withRC := range []bool{false, true} {
			name := kind + "/no_rc"
			if withRC {
				name = kind + "/user_rc"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				home := ""
				if withRC {
					home = t.TempDir()
					rc := userRC[kind]
					if err := os.WriteFile(filepath.Join(home, rc.file), []byte(rc.text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				wantCode, wantSig := hangupStatus(kind)
				c := newClient(t, session.Config{})
				for i := range runs {
					sid := openTestShell(c, kind, home)
					if r := c.exec(sid, "echo hi", nil); r.Output != "hi\n" || code(r.ExitCode) != "0" {
						t.Fatalf("run %d: echo hi: %+v", i, r)
					}
					info := terminateTimed(t, c, sid)
					if info.State != "exited" || code(info.ExitCode) != wantCode || info.Signal != wantSig {
						t.Fatalf("run %d: terminate: state=%s exit_code=%s signal=%q, want exit_code=%s signal=%q",
							i, info.State, code(info.ExitCode), info.Signal, wantCode, wantSig)
					}
					c.call("delete_session", map[string]any{"session_id": sid}, nil)
				}
			})
		}
	}
}

// A job stopped with Ctrl+Z holds SIGTERM pending: terminate continues it
// (as a shell's kill does) instead of waiting for the grace period; dash,
// which does not pass its hang-up on to its jobs, relies on that.
func TestTerminateProcess_StoppedJob(t *testing.T) {
	for _, kind := range shellKinds(t) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, session.Config{})
			sid := openTestShell(c, kind, "")
			r := c.exec(sid, "sleep 300", map[string]any{"timeout_ms": 200})
			if !r.Running {
				t.Fatalf("sleep: %+v", r)
			}
			var s SendResult
			c.call("send_input", map[string]any{"session_id": sid, "keys": []string{"ctrl+z"}, "timeout_ms": 0}, &s)
			var a ExecResult
			c.call("await_command", map[string]any{"session_id": sid}, &a)
			if a.State != "done" || code(a.ExitCode) != "148" {
				t.Fatalf("after ctrl+z: state=%s exit=%s output=%q", a.State, code(a.ExitCode), a.Output)
			}
			wantCode, wantSig := hangupStatus(kind)
			info := terminateTimed(t, c, sid)
			if code(info.ExitCode) != wantCode || info.Signal != wantSig {
				t.Fatalf("terminate: exit_code=%s signal=%q, want exit_code=%s signal=%q", code(info.ExitCode), info.Signal, wantCode, wantSig)
			}
		})
	}
}

// The same over SSH: the remote helper hangs up a remote shell that
// ignores SIGTERM, and the status is the one sshd reports.
func TestSSH_TerminateShellStatus(t *testing.T) {
	const runs = 5
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	for _, kind := range shellKinds(t) {
		t.Run(kind, func(t *testing.T) {
			wantCode, wantSig := hangupStatus(kind)
			for i := range runs {
				var o OpenShellResult
				c.call("open_shell", map[string]any{"host": host, "shell": kind, "no_rc": true}, &o)
				if r := c.exec(o.SessionID, "echo hi", nil); r.Output != "hi\n" || code(r.ExitCode) != "0" {
					t.Fatalf("run %d: echo hi: %+v", i, r)
				}
				info := terminateTimed(t, c.client, o.SessionID)
				if info.State != "exited" || code(info.ExitCode) != wantCode || info.Signal != wantSig {
					t.Fatalf("run %d: terminate: state=%s exit_code=%s signal=%q, want exit_code=%s signal=%q",
						i, info.State, code(info.ExitCode), info.Signal, wantCode, wantSig)
				}
				c.call("delete_session", map[string]any{"session_id": o.SessionID}, nil)
			}
		})
	}
}
