//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// escapeArgv leaves four processes, three of them outside the root's
// process group or parentage: a background sleep, one in its own session
// and one whose parent exited (a double fork).
var escapeArgv = []string{"sh", "-c", "sleep 1000 & setsid sleep 1000 & (sleep 1000 &); wait"}

// policyKernel is get_policy's containment.kernel.
type policyKernel struct {
	Cgroup      bool     `json:"cgroup"`
	CgroupVia   string   `json:"cgroup_via"`
	Controllers []string `json:"controllers"`
	Notes       []string `json:"notes"`
}

func (s *server) kernel() policyKernel {
	s.t.Helper()
	var pol struct {
		Containment struct {
			Kernel policyKernel `json:"kernel"`
		} `json:"containment"`
	}
	s.call("get_policy", map[string]any{}, &pol)
	return pol.Containment.Kernel
}

// sessionContainment is get_session_info's containment.
type sessionContainment struct {
	Kind   string `json:"kind"`
	Why    string `json:"why"`
	Cgroup string `json:"cgroup"`
}

func (s *server) containment(id string) sessionContainment {
	s.t.Helper()
	var info struct {
		Containment sessionContainment `json:"containment"`
	}
	s.call("get_session_info", map[string]any{"session_id": id}, &info)
	return info.Containment
}

// waitEscaped waits until escapeArgv's four processes are the sh and its
// three sleeps. Counting four is not enough: for a moment the double fork's
// subshell is alive beside them before it exits.
func waitEscaped(t *testing.T, tag string) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		pids := taggedPIDs(tag)
		sleeps := 0
		for _, pid := range pids {
			if cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); string(cl) == "sleep\x001000\x00" {
				sleeps++
			}
		}
		if len(pids) == 4 && sleeps == 3 {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("tag %s: want sh and three sleeps, have %s", tag, describe(pids))
		}
		time.Sleep(delay) // backoff of a bounded poll on /proc, not a wait for an event
	}
}

// checkEscapesContained starts escapeArgv and checks that its four
// processes are all members of the session's group below under, that
// terminate ends them and that the group is removed.
func checkEscapesContained(t *testing.T, s *server, under, cwd string) {
	t.Helper()
	tag := newTag(t)
	var r readResult
	s.call("start_process", map[string]any{"argv": escapeArgv, "mode": "pipe", "cwd": cwd,
		"env": map[string]string{tagVar: tag}, "timeout_ms": 0}, &r)
	pids := waitEscaped(t, tag)
	c := s.containment(r.SessionID)
	if c.Kind != "cgroup" || filepath.Dir(filepath.Dir(c.Cgroup)) != under {
		t.Fatalf("containment %+v, want kind cgroup in a group below %s", c, under)
	}
	members := procsIn(c.Cgroup)
	for _, pid := range pids {
		if !slices.Contains(members, pid) {
			t.Fatalf("pid %d (%s) escaped the session's group %s (members %v)", pid, describe([]int{pid}), c.Cgroup, members)
		}
	}
	s.call("terminate_process", map[string]any{"session_id": r.SessionID}, nil)
	if left := taggedPIDs(tag); len(left) > 0 {
		t.Fatalf("terminate left %s", describe(left))
	}
	if _, err := os.Stat(c.Cgroup); !os.IsNotExist(err) {
		t.Fatalf("the session's group %s is still there after terminate: %v", c.Cgroup, err)
	}
}

// TestServe_DelegatedCgroup runs agentty as an ordinary user inside a
// cgroup delegated to that user the way systemd's Delegate=yes does it.
// agentty moves itself (and its guard) into a leaf, makes its sessions'
// groups beside it, contains escapes exactly, and at close moves back and
// leaves the delegated group as it found it. This kernel binds memory,
// pids and cpu to cgroup v1, so no controller can be enabled here: the
// test checks that agentty says so instead.
func TestServe_DelegatedCgroup(t *testing.T) {
	needRoot(t)
	uid, gid := testAccount(t)
	base := userDir(t, uid, gid)
	exe := userExe(t, base)
	cg := makeCgroup(t, "", "agentty-deleg-"+newTag(t), uid, gid)
	s := startServerWith(t, func(cmd *exec.Cmd) { asUser(t, cmd, exe, base, cg, uid, gid) })
	pid := s.cmd.Process.Pid

	k := s.kernel()
	if !k.Cgroup || !strings.Contains(k.CgroupVia, "delegated") {
		t.Fatalf("kernel %+v, want a cgroup via the delegated group %s", k, cg)
	}
	// The leaf holds the server and its guard; the delegated group none.
	var leaf, parent string
	for _, g := range subgroups(cg) {
		if strings.HasSuffix(g, ".server") {
			leaf = filepath.Join(cg, g)
		} else {
			parent = filepath.Join(cg, g)
		}
	}
	if leaf == "" || parent == "" || filepath.Base(leaf) != filepath.Base(parent)+".server" {
		t.Fatalf("groups in %s: %v, want agentty-ID and agentty-ID.server", cg, subgroups(cg))
	}
	guard := waitGuard(t, pid)
	if got := procsIn(leaf); !slices.Contains(got, pid) || !slices.Contains(got, guard) {
		t.Fatalf("leaf %s holds %v, want the server %d and its guard %d", leaf, got, pid, guard)
	}
	if got := procsIn(cg); len(got) != 0 {
		t.Fatalf("the delegated group %s still holds %v", cg, got)
	}
	if strings.Join(k.Controllers, ",") != strings.Join(availableControllers(cg), ",") {
		t.Fatalf("controllers %v, but %s offers %v", k.Controllers, cg, availableControllers(cg))
	}
	if len(k.Controllers) == 0 && !slices.ContainsFunc(k.Notes, func(n string) bool { return strings.Contains(n, "not offered") }) {
		t.Fatalf("no controllers and no note saying why: %v", k.Notes)
	}

	checkEscapesContained(t, s, cg, filepath.Join(base, "home"))
	runContained(t, s, filepath.Base(parent))

	if st := s.close(); st.ExitCode() != 0 {
		t.Fatalf("server ended with %v", st)
	}
	waitCgroupEmpty(t, cg, 10*time.Second)
	if left := subgroups(cg); len(left) != 0 {
		t.Fatalf("groups left in %s after close: %v", cg, left)
	}
	if b, _ := os.ReadFile(filepath.Join(cg, "cgroup.subtree_control")); strings.TrimSpace(string(b)) != "" {
		t.Fatalf("controllers left enabled in %s: %q", cg, b)
	}
}

// availableControllers are the memory, pids and cpu controllers dir offers.
func availableControllers(dir string) []string {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	var out []string
	for _, c := range []string{"memory", "pids", "cpu"} {
		if slices.Contains(strings.Fields(string(b)), c) {
			out = append(out, c)
		}
	}
	return out
}

// runContained runs a program that leaves a process behind with
// run_command: it ran in a run group below agentty's parent and nothing of
// it is left.
func runContained(t *testing.T, s *server, parent string) {
	t.Helper()
	out := runLeavesNothing(t, s, "cat /proc/self/cgroup; setsid sleep 300 >/dev/null 2>&1 & echo started")
	if m := runCgroupRE.FindStringSubmatch(out); m == nil || filepath.Base(filepath.Dir(m[1])) != parent {
		t.Fatalf("run: stdout %q, want a run group below %s", out, parent)
	}
}

// TestServe_NotDelegatedNoBus runs agentty as an ordinary user in a cgroup
// it does not own, with no systemd user manager and no session bus: it
// still starts sessions, tracked by process tree, and says what it tried.
func TestServe_NotDelegatedNoBus(t *testing.T) {
	needRoot(t)
	uid, gid := testAccount(t)
	base := userDir(t, uid, gid)
	exe := userExe(t, base)
	cg := makeCgroup(t, "", "agentty-nodeleg-"+newTag(t), -1, -1)
	s := startServerWith(t, func(cmd *exec.Cmd) { asUser(t, cmd, exe, base, cg, uid, gid) })
	k := s.kernel()
	why := strings.Join(k.Notes, "\n")
	if k.Cgroup || !strings.Contains(why, "is not delegated") || !strings.Contains(why, "no systemd user manager found") {
		t.Fatalf("kernel %+v, want no cgroup, saying it is not delegated and no systemd was found", k)
	}
	tag := newTag(t)
	var r readResult
	s.call("start_process", map[string]any{"argv": treeArgv, "mode": "pipe", "cwd": filepath.Join(base, "home"),
		"env": map[string]string{tagVar: tag}, "timeout_ms": 0}, &r)
	waitTagged(t, tag, 3, 30*time.Second)
	if c := s.containment(r.SessionID); c.Kind != "process_tree" || !strings.Contains(c.Why, "D-Bus") {
		t.Fatalf("containment %+v, want process_tree saying D-Bus was tried", c)
	}
	s.call("terminate_process", map[string]any{"session_id": r.SessionID}, nil)
	waitTagged(t, tag, 0, goneWithin)
}
