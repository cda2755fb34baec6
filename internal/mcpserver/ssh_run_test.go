package mcpserver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

func TestSSH_RunCommandRemote(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	run := func(args map[string]any) RunResult {
		t.Helper()
		args["host"] = host
		var r RunResult
		c.call("run_command", args, &r)
		return r
	}
	t.Run("metacharacters stay literal", func(t *testing.T) {
		args := []string{"a b", "$HOME", "`id`", "$(id)", "*", "x;echo no", "it's", "\"q\"", "|", ">f", "&", "\\", "", "~", "\n"}
		r := run(map[string]any{"argv": append([]string{"printf", "[%s]\\n"}, args...)})
		var want strings.Builder
		for _, a := range args {
			fmt.Fprintf(&want, "[%s]\n", a)
		}
		if r.Stdout.Text != want.String() || r.ExitCode == nil || *r.ExitCode != 0 || !r.OK {
			t.Fatalf("printf: %q exit %v, want %q", r.Stdout.Text, r.ExitCode, want.String())
		}
	})
	t.Run("stdin stderr exit code", func(t *testing.T) {
		r := run(map[string]any{"argv": []string{"sh", "-c", "tr a-z A-Z; echo oops >&2; exit 4"}, "stdin": "hello\nworld"})
		if r.Stdout.Text != "HELLO\nWORLD" || r.Stdout.Lines != 2 || r.Stderr.Text != "oops\n" || r.ExitCode == nil || *r.ExitCode != 4 || r.OK {
			t.Fatalf("run: %+v", r)
		}
		r = run(map[string]any{"argv": []string{"sh", "-c", "exit 4"}, "success_exit_code": 4})
		if !r.OK {
			t.Fatalf("success_exit_code: %+v", r)
		}
	})
	t.Run("cwd env and signal", func(t *testing.T) {
		r := run(map[string]any{"argv": []string{"sh", "-c", "pwd; echo \"$FOO $PAGER\""}, "cwd": "/tmp", "env": map[string]string{"FOO": "b a r"}})
		if r.Stdout.Text != "/tmp\nb a r cat\n" || r.Cwd != "/tmp" {
			t.Fatalf("cwd/env: %+v", r)
		}
		r = run(map[string]any{"argv": []string{"pwd"}, "cwd": "/nonexistent-91376"})
		if r.ExitCode == nil || *r.ExitCode != 126 || !strings.Contains(r.Stderr.Text, "nonexistent-91376") || r.Stdout.Text != "" {
			t.Fatalf("missing cwd: %+v", r)
		}
		r = run(map[string]any{"argv": []string{"sh", "-c", "kill -TERM $$"}})
		if r.Signal != "SIGTERM" || r.ExitCode != nil || r.OK {
			t.Fatalf("signal: %+v", r)
		}
	})
	t.Run("head tail truncation counts", func(t *testing.T) {
		r := run(map[string]any{"argv": []string{"seq", "1", "100000"}, "max_output_bytes": 1000})
		// seq 1 100000 prints 588895 bytes in 100000 lines.
		if r.Stdout.Bytes != 588895 || r.Stdout.Lines != 100000 || !r.Stdout.Truncated || !strings.HasPrefix(r.Stdout.Text, "1\n2\n") || !strings.HasSuffix(r.Stdout.Text, "99999\n100000\n") {
			t.Fatalf("cut: bytes=%d lines=%d truncated=%v omitted=%d", r.Stdout.Bytes, r.Stdout.Lines, r.Stdout.Truncated, r.Stdout.OmittedBytes)
		}
		p := run(map[string]any{"argv": []string{"seq", "1", "1000"}, "page": 3, "page_size": 10})
		if p.Stdout.Text != "31\n32\n33\n34\n35\n36\n37\n38\n39\n40\n" || p.Page == nil || p.Page.TotalLines != 1000 || !p.Page.HasNext {
			t.Fatalf("page: %q %+v", p.Stdout.Text, p.Page)
		}
	})
	t.Run("binary-safe stdin", func(t *testing.T) {
		payload := strings.Repeat("line with 'quotes' and $vars\n", 20000)
		sum := sha256.Sum256([]byte(payload))
		r := run(map[string]any{"argv": []string{"sha256sum"}, "stdin": payload})
		if r.Stdout.Text != hex.EncodeToString(sum[:])+"  -\n" {
			t.Fatalf("sha256: %q", r.Stdout.Text)
		}
	})
	t.Run("timeout kills the remote tree", func(t *testing.T) {
		r := run(map[string]any{"argv": []string{"sh", "-c", "sleep 91374 & echo started; sleep 91375"}, "timeout_ms": 500})
		if !r.TimedOut || r.OK || r.Stdout.Text != "started\n" || r.Signal != "SIGKILL" || r.ExitCode != nil {
			t.Fatalf("timeout: %+v", r)
		}
		if left := remoteWith(e, "9137"); len(left) != 0 {
			t.Fatalf("processes left on the server: %v", left)
		}
	})
	t.Run("refused arguments", func(t *testing.T) {
		msg := c.toolError("run_command", map[string]any{"host": host, "argv": []string{"true"}, "success_file": "x"})
		if !strings.Contains(msg, "success_file") || !strings.Contains(msg, "not supported with host") {
			t.Fatalf("success_file: %s", msg)
		}
	})
}
