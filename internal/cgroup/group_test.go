//go:build linux

package cgroup

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestSweep is the guard's cleanup of a dead server's groups: every
// process in them is killed and the groups and their parent are removed.
// Where this machine gives no cgroup the reason must say so, and Sweep has
// nothing to do.
func TestSweep(t *testing.T) {
	name := ParentName("sweeptest" + strconv.Itoa(os.Getpid()))
	p, err := Open(name)
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Open: %v, want ErrUnavailable with a reason", err)
		}
		t.Logf("no cgroups here: %v", err)
		if err := Sweep(name, time.Second); err != nil && !errors.Is(err, ErrUnavailable) {
			t.Fatal(err)
		}
		return
	}
	var pids []int
	for i := range 3 {
		g, err := p.New("s"+strconv.Itoa(i), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: g.FD()}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		g.CloseFD()
		go func() { _ = cmd.Wait() }()
		procs, err := g.Procs()
		if err != nil || !slices.Contains(procs, cmd.Process.Pid) {
			t.Fatalf("group %d holds %v (%v), want pid %d", i, procs, err, cmd.Process.Pid)
		}
		pids = append(pids, cmd.Process.Pid)
	}
	if err := Sweep(name, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Dir()); !os.IsNotExist(err) {
		t.Fatalf("parent %s still there: %v", p.Dir(), err)
	}
	for _, pid := range pids {
		// Each is killed; its pidfd (if it is still a zombie) is readable.
		if fd, err := pidfdOpen(pid); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			ok := waitReadable(ctx, fd)
			cancel()
			syscall.Close(fd)
			if !ok {
				t.Fatalf("pid %d survived the sweep", pid)
			}
		}
	}
}
