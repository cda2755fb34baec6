//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// systemdBin is systemd, which runs here as a user's manager.
const systemdBin = "/usr/lib/systemd/systemd"

// v1SystemdMount is the cgroup v1 name=systemd hierarchy ("" when there is
// none): a systemd on a hybrid machine tracks its units there too.
func v1SystemdMount(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		pre, post, ok := strings.Cut(strings.TrimSpace(line), " - ")
		f := strings.Fields(pre)
		if ok && strings.HasPrefix(post, "cgroup ") && strings.Contains(post, "name=systemd") && len(f) >= 5 && f[3] == "/" {
			return f[4]
		}
	}
	return ""
}

// startUserManager runs `systemd --user` for uid as user@UID.service would:
// in the cgroup mgr delegated to uid (and its twin in the v1 name=systemd
// hierarchy on a hybrid machine), with XDG_RUNTIME_DIR=runtime, and waits
// for its READY=1. This machine was not booted with systemd, so it runs in
// a mount namespace of its own in which /run/systemd/system exists (what
// systemd checks); nothing outside it changes. Cleanup stops it.
func startUserManager(t *testing.T, mgr, runtime string, uid, gid int) {
	t.Helper()
	if _, err := os.Stat(systemdBin); err != nil {
		t.Skipf("systemd is not installed (%v): scripts/test installs it as root", err)
	}
	v1 := ""
	if m := v1SystemdMount(t); m != "" {
		v1 = filepath.Join(m, filepath.Base(mgr))
		if err := os.Mkdir(v1, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { removeTree(t, v1) })
		_ = filepath.WalkDir(v1, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				err = os.Lchown(p, uid, gid)
			}
			return err
		})
	}
	sock := filepath.Join(runtime, "notify-test")
	ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chown(sock, uid, gid); err != nil {
		t.Fatal(err)
	}
	script := `mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system || exit 1
[ -z "$V1" ] || echo $$ > "$V1/cgroup.procs" || exit 1
exec setpriv --reuid=` + fmt.Sprint(uid) + ` --regid=` + fmt.Sprint(gid) + ` --clear-groups ` + systemdBin + ` --user`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
	home := filepath.Join(filepath.Dir(runtime), "home")
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "USER=" + cgroupUser, "LOGNAME=" + cgroupUser,
		"XDG_RUNTIME_DIR=" + runtime, "NOTIFY_SOCKET=" + sock, "V1=" + v1}
	cmd.Dir = home
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	fd, err := syscall.Open(mgr, syscall.O_DIRECTORY|syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("systemd --user did not stop within 20s of SIGTERM")
		}
	}
	t.Cleanup(stop)

	ready := make(chan error, 1)
	go func() { // ends at READY=1, an error, or the deadline
		_ = ln.SetReadDeadline(time.Now().Add(60 * time.Second))
		buf := make([]byte, 4096)
		for {
			n, err := ln.Read(buf)
			if err != nil {
				ready <- err
				return
			}
			for l := range strings.Lines(string(buf[:n])) {
				if strings.TrimSpace(l) == "READY=1" {
					ready <- nil
					return
				}
			}
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("systemd --user sent no READY=1: %v; its output:\n%s", err, out.String())
		}
	case err := <-exited:
		exited <- err // for stop
		t.Fatalf("systemd --user exited at start (%v): %s", err, out.String())
	}
}

// waitNoPath waits until path no longer exists.
func waitNoPath(t *testing.T, path string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still there after %v", path, within)
		}
		time.Sleep(delay) // bounded poll: systemd removes the group when it collects the unit
	}
}
