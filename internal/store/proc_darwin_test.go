package store

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Mac only: a live process's start, a zombie's and a reaped one's.
func TestProcStart_Darwin(t *testing.T) {
	self := procStart(os.Getpid())
	if age := time.Since(time.UnixMicro(self)); age < 0 || age > time.Hour {
		t.Fatalf("procStart(self) = %d: started %v ago", self, age)
	}
	cmd := exec.Command("/usr/bin/true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	// Not reaped yet: it is a zombie once it has exited.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
		if err != nil || kp.Proc.P_stat == szomb {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d did not exit within 5s", pid)
		}
	}
	if got := procStart(pid); got != 0 {
		t.Errorf("procStart(zombie) = %d, want 0", got)
	}
	_ = cmd.Wait()
	if got := procStart(pid); got != 0 {
		t.Errorf("procStart(reaped) = %d, want 0", got)
	}
}
