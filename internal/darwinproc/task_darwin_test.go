package darwinproc

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// These run on a Mac only (CI here is Linux); they check the trampolines
// and layouts against a live kernel.

func TestTaskInfo_Self(t *testing.T) {
	deadline := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(deadline) { // burn CPU so the user time is visible
	}
	ti, err := TaskInfo(os.Getpid())
	if err != nil {
		t.Fatalf("TaskInfo(self): %v", err)
	}
	if ti.TotalUser < uint64(40*time.Millisecond) || ti.TotalUser > uint64(time.Hour) {
		t.Errorf("TotalUser = %v after 50ms of spinning: the timebase conversion is off", time.Duration(ti.TotalUser))
	}
	if ti.ThreadNum < 2 || ti.ResidentSize < 1<<20 || ti.SyscallsUnix <= 0 {
		t.Errorf("TaskInfo(self) = %+v: want threads >= 2, RSS >= 1 MiB, syscalls > 0", ti)
	}
}

func TestThreads_SleepingChild(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var ths []ThreadInfo
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ths, err = Threads(cmd.Process.Pid); err == nil && len(ths) == 1 && ths[0].RunState == RunWaiting {
			return
		}
	}
	t.Fatalf("Threads(sleep) = %+v, %v; want one waiting thread", ths, err)
}

func TestTaskInfo_Errors(t *testing.T) {
	cmd := exec.Command("/usr/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	t.Run("reaped pid", func(t *testing.T) {
		if _, err := TaskInfo(cmd.Process.Pid); !errors.Is(err, ErrNoProcess) {
			t.Fatalf("TaskInfo(reaped) error = %v, want ErrNoProcess", err)
		}
	})
	t.Run("pid 0", func(t *testing.T) {
		if _, err := Threads(0); !errors.Is(err, ErrNoProcess) {
			t.Fatalf("Threads(0) error = %v, want ErrNoProcess", err)
		}
	})
	t.Run("launchd, another user's", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root may read launchd")
		}
		if _, err := TaskInfo(1); !errors.Is(err, ErrPermission) {
			t.Fatalf("TaskInfo(1) error = %v, want ErrPermission", err)
		}
	})
}

func TestMemoryOf_Self(t *testing.T) {
	m, err := MemoryOf(os.Getpid())
	if err != nil || m.Resident < 1<<20 || m.Footprint == 0 {
		t.Fatalf("MemoryOf(self) = %+v, %v; want RSS >= 1 MiB and a footprint", m, err)
	}
}
