//go:build linux || windows

package store

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcStart_Identity: a running process has a start time that does
// not change; one that has exited, and no pid at all, have none.
func TestProcStart_Identity(t *testing.T) {
	t.Run("self", func(t *testing.T) {
		a, b := procStart(os.Getpid()), procStart(os.Getpid())
		if a == 0 || a != b {
			t.Fatalf("procStart(self) = %d then %d, want one nonzero value", a, b)
		}
	})
	t.Run("exited child", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		if got := procStart(cmd.Process.Pid); got != 0 {
			t.Fatalf("procStart(exited child %d) = %d, want 0", cmd.Process.Pid, got)
		}
	})
	for _, pid := range []int{0, -1} {
		if got := procStart(pid); got != 0 {
			t.Fatalf("procStart(%d) = %d, want 0", pid, got)
		}
	}
}
