package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/audit"
)

// TestServe_ConfigPolicyAudit runs the real binary with a configuration
// file in $XDG_CONFIG_HOME, a flag in the environment and one on the
// command line: the policy from the file refuses what it should, the config
// directory is off limits, and the audit log has a complete line for every
// event once the server is gone.
func TestServe_ConfigPolicyAudit(t *testing.T) {
	xdg := t.TempDir()
	cfgDir := filepath.Join(xdg, "agentty")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `max-sessions = 3
max-read-bytes = "64KiB"

[policy]
allow = ["ls", "cat", "bash"]
deny_patterns = ['--recursive']
`
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	auditDir := filepath.Join(t.TempDir(), "audit")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("AGENTTY_AUDIT_LOG", auditDir)
	t.Setenv("AGENTTY_MAX_SESSIONS", "2") // env beats the file's 3
	s := startServer(t, "-max-read-bytes", "32KiB")

	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "ls && rm -rf x"}, "rm is not on the allow list [ls cat bash] (rule allow)"},
		{map[string]any{"argv": []string{"ls", "--recursive"}}, "rule deny_patterns"},
		{map[string]any{"argv": []string{"ls"}, "cwd": cfgDir}, "rule protected"},
		{map[string]any{"command": "cat " + cfgDir + "/config.toml"}, "rule protected"},
		{map[string]any{"command": "echo x > $XDG_CONFIG_HOME/agentty/config.toml"}, "rule protected"},
		{map[string]any{"argv": []string{"ls"}, "max_bytes": 40000}, "limit of 32768"},
	}
	for _, tc := range cases {
		if msg := s.toolError("start_process", tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("start_process(%v) = %q, want %q", tc.args, msg, tc.want)
		}
	}
	var r struct {
		SessionID string `json:"session_id"`
		State     string `json:"state"`
	}
	s.call("start_process", map[string]any{"argv": []string{"ls", "/"}, "mode": "pipe"}, &r)
	if r.State != "exited" {
		t.Fatalf("ls: %+v", r)
	}
	s.call("start_process", map[string]any{"argv": []string{"cat"}, "mode": "pipe", "timeout_ms": 0}, &r)
	if msg := s.toolError("start_process", map[string]any{"argv": []string{"cat"}}); !strings.Contains(msg, "limit 2") {
		t.Fatalf("max-sessions from the environment: %q", msg)
	}
	s.call("send_input", map[string]any{"session_id": r.SessionID, "text": "hello", "enter": true, "until": "hello"}, nil)
	s.call("terminate_process", map[string]any{"session_id": r.SessionID, "force": true}, nil)
	if st := s.close(); st.ExitCode() != 0 {
		t.Fatalf("server exit %v", st)
	}

	f, err := os.Open(filepath.Join(auditDir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	count := map[string]int{}
	var first audit.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e audit.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		if e.TS.IsZero() || e.Event == "" {
			t.Fatalf("incomplete event %q", sc.Text())
		}
		if count[e.Event]++; len(count) == 1 && count[e.Event] == 1 {
			first = e
		}
	}
	want := map[string]int{audit.EventPolicy: 1, audit.EventRefusal: 6, audit.EventStart: 2, audit.EventInput: 1, audit.EventStop: 1, audit.EventExit: 2}
	for ev, n := range want {
		if count[ev] != n {
			t.Errorf("%d %s events, want %d (all: %v)", count[ev], ev, n, count)
		}
	}
	if first.Event != audit.EventPolicy || !strings.Contains(first.Detail["policy"], "allow=[ls cat bash]") ||
		!strings.Contains(first.Detail["sources"], "audit-log=env") || !strings.Contains(first.Detail["sources"], "max-read-bytes=flag") ||
		!strings.Contains(first.Detail["sources"], "max-sessions=env") {
		t.Fatalf("first event %+v", first)
	}
}

func TestServe_ConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[policy]\nallow = [\"ls\"]\ndeny_pattern = [\"x\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := selfCommand(t, "serve", "-config", bad)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown key "deny_pattern"`) {
		t.Fatalf("err %v, output %s", err, out)
	}
}

// TestServe_AllowListNamesWhatToAdd: open_shell with no shell runs $SHELL,
// a path the person never wrote in the allow list; the refusal names the
// entry that would admit it.
func TestServe_AllowListNamesWhatToAdd(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/bash"); err != nil {
		t.Skip("no /usr/bin/bash")
	}
	outside := filepath.Join(t.TempDir(), "bash")
	if err := os.Symlink("/usr/bin/bash", outside); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, shell, want string }{
		{"in a PATH directory", "/usr/bin/bash",
			`refused by policy: /usr/bin/bash is not on the allow list [ls]; to allow it, add "bash" (any bash in a PATH directory) or "/usr/bin/bash" to allow (rule allow)`},
		{"outside PATH", outside,
			`refused by policy: ` + outside + ` is not on the allow list [ls]; to allow it, add "` + outside + `" to allow (a bare "bash" matches only files in PATH directories) (rule allow)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			xdg := t.TempDir()
			if err := os.MkdirAll(filepath.Join(xdg, "agentty"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(xdg, "agentty", "config.toml"), []byte("[policy]\nallow = [\"ls\"]\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := startServerWith(t, func(cmd *exec.Cmd) {
				cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+xdg, "SHELL="+tc.shell, "PATH=/usr/local/bin:/usr/bin:/bin")
			})
			if msg := s.toolError("open_shell", map[string]any{}); msg != tc.want {
				t.Errorf("open_shell under allow [ls]:\n got %q\nwant %q", msg, tc.want)
			}
		})
	}
}
