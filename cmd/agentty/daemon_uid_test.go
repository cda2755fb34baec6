//go:build unix

package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// testUser is the account the SSH tests use; here it is the other user
// who must get nothing from the daemon.
const testUser = "agentty-mcpt"

func TestDaemon_RefusesOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create and become another user")
	}
	t.Parallel()
	u, err := user.Lookup(testUser)
	if err != nil {
		if out, err := exec.Command("useradd", "-m", "-s", "/bin/bash", testUser).CombinedOutput(); err != nil {
			if u, err = user.Lookup(testUser); err != nil {
				t.Fatalf("useradd %s: %s", testUser, out)
			}
		}
		if u, err = user.Lookup(testUser); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// The other user runs a copy of this binary it may execute.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "agentty-daemon-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyExe := filepath.Join(dir, "agentty")
	if err := os.WriteFile(copyExe, bin, 0o755); err != nil {
		t.Fatal(err)
	}

	h := newDaemonHome(t)
	h.serve(t, nil)
	asOther := func(t *testing.T) (string, int) {
		cmd := h.command(t, "daemon", "-status")
		cmd.Path, cmd.Args[0] = copyExe, copyExe
		cmd.Env = append(cmd.Env, "HOME="+u.HomeDir, "XDG_STATE_HOME=", "XDG_CONFIG_HOME=")
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	t.Run("directory closed", func(t *testing.T) {
		out, code := asOther(t)
		if code != 1 || !strings.Contains(out, "permission denied") {
			t.Errorf("another user reaching the socket in its 0700 directory: exit %d:\n%s", code, out)
		}
	})
	t.Run("peer uid refused", func(t *testing.T) {
		// Open the way (as a careless chmod would): the uid check alone
		// must turn the other user away.
		for _, p := range []string{filepath.Dir(filepath.Dir(h.socket)), filepath.Dir(h.socket)} {
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(h.socket, 0o777); err != nil {
			t.Fatal(err)
		}
		out, code := asOther(t)
		// Closed at once: the client sees EOF, a reset or a broken pipe.
		if code != 1 || !strings.Contains(out, "daemon socket:") || strings.Contains(out, "version") {
			t.Errorf("another user connecting to the socket: exit %d, want the connection closed:\n%s", code, out)
		}
		if log := h.log(t); !strings.Contains(log, "refused a daemon socket connection from another user") || !strings.Contains(log, "uid="+u.Uid) {
			t.Errorf("the daemon did not log the refusal:\n%s", log)
		}
		// The owner still gets in.
		if st := h.status(t); st.Clients != 1 {
			t.Errorf("daemon status for its owner: %+v", st)
		}
	})
}
