//go:build linux

package store

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/record"
)

// A server that died is gone even while it is a zombie nobody reaps (the
// serve that spawned the daemon is stopped): its running sessions are lost,
// whether it died before this store opened or while it was open.
func TestStore_ZombieOwnerIsGone(t *testing.T) {
	for _, tc := range []struct {
		name      string
		diesAfter bool // the owner dies once the store is open
	}{{"dead before open", false}, {"dies while open", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first := openTest(t, dir, nil)
			startSession(first, "s1", 1<<20)
			if !first.Sync(10 * time.Second) {
				t.Fatal("store did not commit")
			}
			// Stands in for the other server; the test never reaps it until
			// the end, so once killed it stays a zombie.
			owner := exec.Command("sleep", "100")
			if err := owner.Start(); err != nil {
				t.Fatal(err)
			}
			pid := owner.Process.Pid
			t.Cleanup(func() { _ = owner.Process.Kill(); _ = owner.Wait() })
			if _, err := first.db.Exec(`UPDATE sessions SET owner_pid=?, owner_start=? WHERE id='s1'`, pid, procStart(pid)); err != nil {
				t.Fatal(err)
			}
			first.Forget("s1")
			if err := first.Close(); err != nil {
				t.Fatal(err)
			}
			if !tc.diesAfter {
				killToZombie(t, pid)
			}
			s := openTest(t, dir, nil)
			if tc.diesAfter {
				if r, err := s.Session("s1"); err != nil || r.State != record.StateRunning {
					t.Fatalf("while its server lives: %q %v, want running", r.State, err)
				}
				killToZombie(t, pid)
			}
			list, err := s.Sessions(time.Time{}, 0)
			if err != nil || len(list) != 1 || list[0].State != record.StateLost {
				t.Fatalf("list: %+v %v, want s1 lost", list, err)
			}
			r, err := s.Session("s1")
			if err != nil || r.State != record.StateLost || !strings.Contains(r.LostReason, "stopped without recording the exit") {
				t.Fatalf("session: state %q reason %q %v, want lost", r.State, r.LostReason, err)
			}
			if err := s.Delete("s1"); err != nil {
				t.Fatalf("delete: %v", err)
			}
		})
	}
}

// killToZombie SIGKILLs pid, a child of the test, and returns once it has
// exited, leaving it unreaped.
func killToZombie(t *testing.T, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
		t.Fatal(err)
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 10000)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n != 1 {
			t.Fatalf("pid %d did not exit: %d %v", pid, n, err)
		}
		return
	}
}
