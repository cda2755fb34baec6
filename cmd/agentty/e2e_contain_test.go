package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServe_ConfiguredSandbox runs the real binary with [limits] and
// [sandbox] in its configuration: a session's program runs through the
// binary's own sandbox helper, cannot write outside its cwd, has no
// network beyond loopback, and get_session_info says how it is held.
func TestServe_ConfiguredSandbox(t *testing.T) { configuredSandbox(t, nil) }

// TestServe_StaticBuildSandbox is TestServe_ConfiguredSandbox with agentty
// built as README installs it (CGO_ENABLED=0): without cgo, go-landlock's
// psx applies the rules through the runtime's all-threads syscall instead
// of libc's threads.
func TestServe_StaticBuildSandbox(t *testing.T) {
	exe := staticBinary(t)
	configuredSandbox(t, func(c *exec.Cmd) { c.Path, c.Args[0] = exe, exe })
}

func configuredSandbox(t *testing.T, setup func(*exec.Cmd)) {
	cfgPath := filepath.Join(t.TempDir(), "config.toml")
	cfg := "[limits]\ncpu_seconds = 600\nno_core_dumps = true\n\n[sandbox]\nfilesystem = \"readonly\"\nno_network = true\n"
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	s := startServerWith(t, setup, "-config", cfgPath)
	cwd := t.TempDir()
	var r struct {
		SessionID string `json:"session_id"`
		Output    string `json:"output"`
	}
	script := "echo ok > here && cat here; echo x > " + outside + "/f; ulimit -t; ulimit -c; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"
	s.call("start_process", map[string]any{"command": script, "cwd": cwd, "mode": "pipe", "merge_stderr": true,
		"return_on": []string{"exit"}, "timeout_ms": 30000}, &r)
	want := "ok\n/bin/sh: 1: cannot create " + outside + "/f: Permission denied\n600\n0\nlo\n"
	if r.Output != want {
		t.Fatalf("output %q, want %q", r.Output, want)
	}
	var info struct {
		Containment struct {
			Kind    string           `json:"kind"`
			Why     string           `json:"why"`
			Sandbox []string         `json:"sandbox"`
			Limits  map[string]int64 `json:"limits"`
		} `json:"containment"`
	}
	s.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
	c := info.Containment
	if got := strings.Join(c.Sandbox, ","); got != "landlock:readonly,netns,no_new_privs,rlimits" || c.Limits["cpu_seconds"] != 600 {
		t.Fatalf("containment %+v", c)
	}
	if c.Kind != "cgroup" && (c.Kind != "process_tree" || c.Why == "") {
		t.Fatalf("containment kind %q why %q", c.Kind, c.Why)
	}
	msg := s.toolError("start_process", map[string]any{"argv": []string{"true"}, "sandbox": map[string]any{"landlock_abi": 99}})
	if !strings.Contains(msg, "landlock is required but unavailable") {
		t.Fatalf("refusal %q", msg)
	}
}
