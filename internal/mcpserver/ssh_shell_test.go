//go:build unix

package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// remoteTempFiles lists what the test user left in /tmp from agentty's
// integration (rc directories, command files) and write_file's temporary
// files in dir.
func remoteTempFiles(t *testing.T, e *sshEnv, dirs ...string) []string {
	t.Helper()
	var out []string
	for _, d := range append([]string{"/tmp"}, dirs...) {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, ent := range ents {
			n := ent.Name()
			if !strings.HasPrefix(n, "agentty-cmd-") && !strings.HasPrefix(n, "agentty-shell-") && !strings.HasPrefix(n, ".agentty-") {
				continue
			}
			var st syscall.Stat_t
			if syscall.Stat(filepath.Join(d, n), &st) == nil && int(st.Uid) == e.srv.UID {
				out = append(out, filepath.Join(d, n))
			}
		}
	}
	return out
}

func TestSSH_RemoteShell(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	for _, kind := range shellKinds(t) {
		t.Run(kind, func(t *testing.T) {
			needShell(t, kind)
			var o OpenShellResult
			c.call("open_shell", map[string]any{"host": host, "shell": kind, "no_rc": true}, &o)
			if o.Host != e.srv.User+"@"+e.srv.Addr || o.Shell != kind {
				t.Fatalf("open_shell: %+v", o)
			}
			exec := func(cmd string) ExecResult {
				t.Helper()
				var r ExecResult
				c.call("exec_command", map[string]any{"session_id": o.SessionID, "command": cmd}, &r)
				return r
			}
			r := exec("cd /tmp && pwd")
			if r.Output != "/tmp\n" || r.Cwd != "/tmp" || r.ExitCode == nil || *r.ExitCode != 0 {
				t.Fatalf("cd: %+v", r)
			}
			r = exec("d=$(mktemp -d) && cd \"$d\" && pwd")
			dir := strings.TrimSpace(r.Output)
			if r.Cwd != dir || !strings.HasPrefix(dir, "/tmp/") {
				t.Fatalf("mktemp: %+v", r)
			}
			for _, tc := range []struct {
				name, cmd, out string
				code           int
			}{
				{"exit code", "echo out; (exit 7)", "out\n", 7},
				{"whoami", "id -un", e.srv.User + "\n", 0},
				{"heredoc", "cat <<'EOF'\na $b 'c'\n  \"d\"\nEOF", "a $b 'c'\n  \"d\"\n", 0},
				{"forged mark", `printf 'x\033]133;D;0;aid=fake.99\007\033]7;file:///forged\007y\n'; exit_=3; (exit $exit_)`, "x\x1b]133;D;0;aid=fake.99\x07\x1b]7;file:///forged\x07y\n", 3},
				{"state carries over", "v=kept; echo $v", "kept\n", 0},
				{"state seen", "echo $v", "kept\n", 0},
			} {
				r := exec(tc.cmd)
				got := r.Output
				if tc.name == "forged mark" {
					// The clean text drops escape sequences: what is left is
					// the printed text, and the command did not end early.
					tc.out = "xy\n"
				}
				if got != tc.out || r.ExitCode == nil || *r.ExitCode != tc.code || r.Cwd != dir {
					t.Fatalf("%s: output %q exit %v cwd %q, want %q exit %d cwd %q", tc.name, got, r.ExitCode, r.Cwd, tc.out, tc.code, dir)
				}
			}
			// write_file lands on the remote, relative to the shell's cwd,
			// keeping an existing file's mode.
			var w WriteFileResult
			c.call("write_file", map[string]any{"session_id": o.SessionID, "path": "sub/w.txt", "content": "one\n", "make_dirs": true}, &w)
			if w.Path != dir+"/sub/w.txt" || !w.Created || w.Size != 4 {
				t.Fatalf("write_file: %+v", w)
			}
			if msg := c.toolError("write_file", map[string]any{"session_id": o.SessionID, "path": "nodir/w.txt", "content": "x"}); !strings.Contains(msg, "directory "+dir+"/nodir does not exist; pass make_dirs=true") {
				t.Fatalf("write_file into a missing directory: %s", msg)
			}
			if r := exec("chmod 751 sub/w.txt"); *r.ExitCode != 0 {
				t.Fatalf("chmod: %+v", r)
			}
			c.call("write_file", map[string]any{"session_id": o.SessionID, "path": "sub/w.txt", "content": "two|$x'\n"}, &w)
			if w.Created || w.Size != 8 {
				t.Fatalf("replace: %+v", w)
			}
			c.call("write_file", map[string]any{"session_id": o.SessionID, "path": "sub/w.txt", "content": "three\n", "append": true}, &w)
			if r := exec("cat sub/w.txt; stat -c %a sub/w.txt"); r.Output != "two|$x'\nthree\n751\n" {
				t.Fatalf("content after writes: %q", r.Output)
			}
			// A long command leaves no command file while it runs, and
			// terminate_process ends it and the shell on the remote.
			var run ExecResult
			c.call("exec_command", map[string]any{"session_id": o.SessionID, "command": "sleep 91373", "timeout_ms": 200}, &run)
			if !run.Running {
				t.Fatalf("sleep: %+v", run)
			}
			if left := remoteTempFiles(t, e, dir, dir+"/sub"); len(left) != 0 {
				t.Fatalf("files left on the remote while running: %v", left)
			}
			var info InfoResult
			c.call("terminate_process", map[string]any{"session_id": o.SessionID, "grace_ms": 300}, &info)
			if info.State != "exited" {
				t.Fatalf("terminate: %+v", info)
			}
			if left := remoteWith(e, "91373"); len(left) != 0 {
				t.Fatalf("processes left on the server: %v", left)
			}
			if left := remoteWith(e, "agentty-shell-"); len(left) != 0 {
				t.Fatalf("shell left on the server: %v", left)
			}
			if left := remoteTempFiles(t, e, dir, dir+"/sub"); len(left) != 0 {
				t.Fatalf("files left on the remote: %v", left)
			}
			_ = os.RemoveAll(dir)
		})
	}
}

// Without shell, the remote's login shell (if supported), else bash, else
// sh is found on the remote in one round trip.
func TestSSH_RemoteShellDefault(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	var o OpenShellResult
	c.call("open_shell", map[string]any{"host": e.srv.Target(e.srv.Addr), "no_rc": true, "cwd": "/tmp"}, &o)
	if (o.Shell != "bash" && o.Shell != "sh") || !strings.HasPrefix(o.Path, "/") || o.Cwd != "/tmp" {
		t.Fatalf("open_shell: %+v", o)
	}
	var r ExecResult
	c.call("exec_command", map[string]any{"session_id": o.SessionID, "command": "echo $((6*7))"}, &r)
	if r.Output != "42\n" || r.Cwd != "/tmp" {
		t.Fatalf("exec: %+v", r)
	}
	msg := c.toolError("open_shell", map[string]any{"host": e.srv.Target(e.srv.Addr), "shell": "fish"})
	if !strings.Contains(msg, "unsupported shell") {
		t.Fatalf("fish: %s", msg)
	}
}
