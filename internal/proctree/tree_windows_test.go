package proctree

import (
	"os"
	"os/exec"
	"testing"
)

// Runs on Windows and under Wine.
func TestRunning_Windows(t *testing.T) {
	if !Running(os.Getpid()) {
		t.Fatal("this process is not running")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Running(cmd.Process.Pid) {
		t.Fatalf("exited child %d is running", cmd.Process.Pid)
	}
	g, err := StartGuard(nil, "", nil, "")
	if err != nil || g.PID() != 0 {
		t.Fatalf("StartGuard = %v, %v; want the kernel's guard", g, err)
	}
	select {
	case <-g.Done():
		t.Fatal("the kernel's guard is done before Close")
	default:
	}
	g.Close()
	g.Close()
	<-g.Done()
}
