//go:build linux

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServe_SystemdScope runs agentty as an ordinary user in a cgroup of
// its systemd user manager that is not delegated to it (as a login
// session's scope is not). agentty asks the manager over D-Bus for a
// transient scope with Delegate=yes, moves into a leaf of it and contains
// its sessions and runs there; once agentty has exited, systemd collects
// the empty scope. The manager is a real `systemd --user`.
func TestServe_SystemdScope(t *testing.T) {
	needRoot(t)
	uid, gid := testAccount(t)
	base := userDir(t, uid, gid)
	exe := userExe(t, base)
	mgr := makeCgroup(t, "", "agentty-sd-"+newTag(t), uid, gid)
	startUserManager(t, mgr, filepath.Join(base, "run"), uid, gid)
	launch := makeCgroup(t, mgr, "launch", -1, -1)

	s := startServerWith(t, func(cmd *exec.Cmd) { asUser(t, cmd, exe, base, launch, uid, gid) })
	k := s.kernel()
	if !k.Cgroup || !strings.Contains(k.CgroupVia, "systemd scope agentty-") || !strings.Contains(k.CgroupVia, "delegated") {
		t.Fatalf("kernel %+v, want a cgroup via a systemd scope", k)
	}
	own := cgroupOf(s.cmd.Process.Pid) // .../agentty-ID.scope/agentty-ID.server
	t.Logf("cgroup via %s; the server is in %s", k.CgroupVia, own)
	scope := filepath.Join(cgroup2Mount(t), filepath.Dir(own))
	name := strings.TrimSuffix(filepath.Base(scope), ".scope")
	if filepath.Base(own) != name+".server" || !strings.HasPrefix(scope, mgr+"/") {
		t.Fatalf("the server is in %s, want %s.scope/%s.server below %s", own, name, name, mgr)
	}
	checkEscapesContained(t, s, scope, filepath.Join(base, "home"))
	runContained(t, s, name)

	if st := s.close(); st.ExitCode() != 0 {
		t.Fatalf("server ended with %v", st)
	}
	waitNoPath(t, scope, 20*time.Second)
}
