//go:build linux

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// runCgroupRE is a run's line of /proc/self/cgroup: its own group below
// agentty's parent group.
var runCgroupRE = regexp.MustCompile(`(?m)^0::(/.*/?agentty-[0-9a-f]+/run-[0-9]+)$`)

// TestRunCommand_LeftoversEndInItsCgroup runs programs that leave a
// process behind (setsid, a double fork) through run_command: each run
// lives in a cgroup of its own, and at its end nothing it started is left
// and its group is gone. Without a cgroup (not root and no delegation) the
// run says nothing of one and this test has nothing to check.
func TestRunCommand_LeftoversEndInItsCgroup(t *testing.T) {
	s := startServer(t)
	var pol struct {
		Containment struct {
			Kernel struct {
				Cgroup bool     `json:"cgroup"`
				Notes  []string `json:"notes"`
			} `json:"kernel"`
		} `json:"containment"`
	}
	s.call("get_policy", map[string]any{}, &pol)
	if !pol.Containment.Kernel.Cgroup {
		t.Fatalf("no cgroup for this server (this test runs as root on a cgroup v2 mount): %v", pol.Containment.Kernel.Notes)
	}
	mnt := cgroup2Mount(t)
	for _, sc := range []struct{ name, script string }{
		{"setsid", "cat /proc/self/cgroup; setsid sleep 300 >/dev/null 2>&1 & echo started"},
		{"double fork", "cat /proc/self/cgroup; (sleep 300 >/dev/null 2>&1 &); echo started"},
		{"holds stdout", "cat /proc/self/cgroup; setsid sleep 300 & echo started"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			out := runLeavesNothing(t, s, sc.script)
			m := runCgroupRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("the run was in no run group of its own: %q", out)
			}
			if _, err := os.Stat(filepath.Join(mnt, m[1])); !os.IsNotExist(err) {
				t.Fatalf("the run's group %s is still there: %v", m[1], err)
			}
		})
	}
}
