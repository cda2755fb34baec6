//go:build linux

package proctree

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestTerminate_SetsidChildCaughtInExec: a root that starts a setsid'd
// child and exits at once leaves the child between its fork and its
// exec when Terminate runs, more often the more loaded the machine is. It
// is in no group of the root's and its parent is init: only the marker
// finds it, and its environment reads empty for the middle of its exec.
// Looped, since the moment is a race; a child that survives fails it.
func TestTerminate_SetsidChildCaughtInExec(t *testing.T) {
	for i := range 50 {
		entry := EnvKey + "=" + newInstance(t) + "/s1"
		cmd := exec.Command("sh", "-c", `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!`)
		cmd.Env = append(withoutEnv(os.Environ(), EnvKey), entry)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		child, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("output %q", out)
		}
		if _, err := Terminate(context.Background(), cmd.Process.Pid, entry, 0); err != nil {
			t.Fatal(err)
		}
		if Running(child) {
			st, _ := os.ReadFile(procPath(child, "stat"))
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("round %d: child %d outlived Terminate: %s", i, child, st)
		}
	}
}

// TestMarkedOrExec_OnlyMidExec: processes with a command line, an empty
// environment (env -i) or neither because they exited are not taken for
// one in the middle of an exec.
func TestMarkedOrExec_OnlyMidExec(t *testing.T) {
	var r envReader
	never := func([]byte) bool { return false }
	inExec := func(pid int) bool { return markedOrExec(pid, &r, never) == execing }
	if inExec(os.Getpid()) {
		t.Error("this process reads as in exec")
	}
	bare := exec.Command("env", "-i", "sleep", "300")
	if err := bare.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bare.Process.Kill(); _ = bare.Wait() })
	waitFor(t, "env -i to exec sleep", func() bool {
		cmd, _ := os.ReadFile(procPath(bare.Process.Pid, "cmdline"))
		return string(cmd) == "sleep\x00300\x00"
	})
	if env, _ := os.ReadFile(procPath(bare.Process.Pid, "environ")); len(env) != 0 {
		t.Fatalf("env -i left an environment: %q", env)
	}
	if inExec(bare.Process.Pid) {
		t.Error("a process with an empty environment reads as in exec")
	}
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = zombie.Wait() })
	waitFor(t, "true to exit", func() bool {
		st, err := readStat(zombie.Process.Pid)
		return err == nil && st.dead()
	})
	if inExec(zombie.Process.Pid) {
		t.Error("a zombie reads as in exec")
	}
	if st, err := readStat(2); err == nil && st.Comm == "kthreadd" && inExec(2) {
		t.Error("kthreadd reads as in exec")
	}
}
