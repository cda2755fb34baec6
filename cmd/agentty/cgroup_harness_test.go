//go:build linux

package main

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cgroupUser is the local account the cgroup delegation tests run agentty
// as (not the SSH tests' account: these tests kill what it leaves).
const cgroupUser = "agentty-cgt"

// needRoot skips, saying why, when the test cannot create users and
// cgroups; the suite runs as root here and in CI.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates a local user and cgroups delegated to it")
	}
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted.
func cgroup2Mount(t testing.TB) string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if fs := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(fs) >= 5 && fs[3] == "/" {
			return fs[4]
		}
	}
	t.Fatal("no cgroup2 file system is mounted")
	return ""
}

var userOnce sync.Mutex

// testAccount creates cgroupUser once and returns its uid and gid.
func testAccount(t *testing.T) (uid, gid int) {
	t.Helper()
	userOnce.Lock()
	defer userOnce.Unlock()
	if _, err := user.Lookup(cgroupUser); err != nil {
		if out, err := exec.Command("useradd", "-m", "-s", "/bin/bash", cgroupUser).CombinedOutput(); err != nil {
			if _, lerr := user.Lookup(cgroupUser); lerr != nil { // another test binary may have won
				t.Fatalf("useradd %s: %v: %s", cgroupUser, err, out)
			}
		}
	}
	u, err := user.Lookup(cgroupUser)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// userDir is a fresh directory owned by uid that it can reach (its
// parents are world-searchable).
func userDir(t *testing.T, uid, gid int) string {
	t.Helper()
	d, err := os.MkdirTemp("", "agentty-cgt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"home", "state", "run", "bin"} {
		p := filepath.Join(d, sub)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// userExe copies this test binary into dir/bin, where uid may run it (the
// build directory is root's alone).
func userExe(t *testing.T, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	exe := filepath.Join(dir, "bin", "agentty")
	dst, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return exe
}

// makeCgroup creates dir name in the cgroup2 mount (below parent when not
// ""). With uid >= 0 it is delegated to uid as systemd's Delegate=yes does:
// the directory and its cgroup.procs, cgroup.subtree_control and
// cgroup.threads are chowned. Cleanup kills whatever is left in it and
// removes it with every group below.
func makeCgroup(t *testing.T, parent, name string, uid, gid int) string {
	t.Helper()
	if parent == "" {
		parent = cgroup2Mount(t)
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeCgroup(t, dir) })
	if uid >= 0 {
		for _, p := range []string{dir, dir + "/cgroup.procs", dir + "/cgroup.subtree_control", dir + "/cgroup.threads"} {
			if err := os.Chown(p, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// removeCgroup kills what is in dir and removes it, deepest groups first.
func removeCgroup(t *testing.T, dir string) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	waitCgroupEmpty(t, dir, 10*time.Second)
	removeTree(t, dir)
}

// removeTree removes a test cgroup and the groups below it, deepest first.
func removeTree(t *testing.T, dir string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	slices.Reverse(dirs)
	for _, d := range dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("remove test cgroup %s: %v", d, err)
		}
	}
}

// waitCgroupEmpty waits until no process is in dir or below it.
func waitCgroupEmpty(t *testing.T, dir string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
		if err != nil || strings.Contains(string(b), "populated 0") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cgroup %s still populated after %v: %v", dir, within, procsIn(dir))
		}
		time.Sleep(delay) // bounded poll of cgroup.events, like waitTagged's of /proc
	}
}

// procsIn lists the processes directly in a cgroup.
func procsIn(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// subgroups names the groups directly below dir.
func subgroups(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// cgroupOf is the cgroup v2 path of pid, relative to the mount.
func cgroupOf(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	for line := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			return p
		}
	}
	return ""
}

// asUser makes cmd run exe as uid:gid in cgroup dir (placed there at clone
// time), with its home, state and runtime directories below base.
func asUser(t *testing.T, cmd *exec.Cmd, exe, base, cg string, uid, gid int, env ...string) {
	t.Helper()
	fd, err := syscall.Open(cg, syscall.O_DIRECTORY|syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	cmd.Path, cmd.Args[0], cmd.Dir = exe, exe, filepath.Join(base, "home")
	cmd.Env = append(cmd.Env, "HOME="+filepath.Join(base, "home"), "USER="+cgroupUser, "LOGNAME="+cgroupUser,
		"XDG_STATE_HOME="+filepath.Join(base, "state"), "XDG_RUNTIME_DIR="+filepath.Join(base, "run"),
		"DBUS_SESSION_BUS_ADDRESS=")
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)},
		UseCgroupFD: true, CgroupFD: fd}
}
