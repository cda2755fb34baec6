//go:build linux

package proctree

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/agentty/agentty/internal/platform"
)

// holdStdinEnv makes the portable fake parent hand the write end of its
// guard's stdin to a process that outlives it, so the guard sees no end of
// file and only its watch of the parent's pid can tell it.
const holdStdinEnv = "PROCTREE_TEST_HOLD_STDIN"

// TestGuard_PortableAfterParentSIGKILL is TestGuardAfterParentSIGKILL with
// macOS's strategies (AGENTTY_PORTABLE): no parent-death signal anywhere, a
// tracked tree, and an orphan that left the group, cleared its environment
// and lost its parent before agentty died. The guard fed by the tracker
// ends it; with the guard alone (no tracker feed) it survives, which shows
// the check can fail. The held case ends the guard's stdin nowhere: only
// its watch of agentty's pid can start the sweep.
func TestGuard_PortableAfterParentSIGKILL(t *testing.T) {
	cases := []struct {
		portable, hold string
		orphanDies     bool
	}{
		{"tree,guard", "", true},
		{"tree,guard", "1", true},
		{"guard", "", false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s hold=%q", tc.portable, tc.hold), func(t *testing.T) {
			inst := newInstance(t)
			procs := runFakeParentPortable(t, inst, tc.portable, tc.hold)
			guard, tree := procs[0], procs[1:]
			orphan := tree[len(tree)-1]
			t.Cleanup(func() {
				k := newKiller(protectSelf())
				defer k.close()
				k.signal(procs, nil, syscall.SIGKILL)
			})
			for _, p := range tree[:len(tree)-1] {
				waitFor(t, fmt.Sprintf("%s %d to die", p.Comm, p.PID), func() bool { return !alive(p) })
			}
			waitFor(t, "the guard to finish", func() bool { return !alive(guard) })
			if alive(orphan) == tc.orphanDies {
				t.Fatalf("orphan %d alive=%v after the guard finished, want %v", orphan.PID, alive(orphan), !tc.orphanDies)
			}
		})
	}
}

// runFakeParentPortable runs fakeParentPortable and SIGKILLs it once it
// reported the guard, then the tree, root first and the orphan last.
func runFakeParentPortable(t *testing.T, inst, portable, hold string) []Proc {
	t.Helper()
	procs := runFake(t, modeEnv+"=fakeparent-portable", instanceEnv+"="+inst, platform.Env+"="+portable, holdStdinEnv+"="+hold)
	if len(procs) != 5 || procs[0].Comm != "guard" || procs[1].Comm != "sh" {
		t.Fatalf("fake parent reported %v, want the guard, sh and three more", procs)
	}
	return procs
}

// fakeParentPortable plays agentty with the strategies of AGENTTY_PORTABLE
// for TestGuard_PortableAfterParentSIGKILL.
func fakeParentPortable() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, err); return 1 }
	sp := NewSpawner()
	g, err := StartGuard(sp, os.Args[0], []string{guardArg}, os.Getenv(instanceEnv))
	if err != nil {
		return fail(err)
	}
	if os.Getenv(holdStdinEnv) != "" {
		holder := exec.Command("sleep", "1000")
		holder.ExtraFiles = []*os.File{g.stdin}
		holder.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := holder.Start(); err != nil {
			return fail(err)
		}
		// It must end once the guard did: the guard is what the test waits for.
		go func() {
			<-g.Done()
			_ = holder.Process.Kill()
		}()
		defer holder.Process.Kill()
	}
	entry := EnvKey + "=" + os.Getenv(instanceEnv) + "/s1"
	cmd := exec.Command("sh", "-c", orphanScript)
	cmd.Env = append(withoutEnv(os.Environ(), EnvKey), entry)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sp.Do(func() { err = cmd.Start() })
	if err != nil {
		return fail(err)
	}
	tr, err := Track(cmd.Process.Pid)
	if err != nil {
		return fail(err)
	}
	orphan, err := orphanTree(cmd.Process.Pid, tr)
	if err != nil {
		return fail(err)
	}
	gst, err := readStat(g.PID())
	if err != nil {
		return fail(err)
	}
	fmt.Printf("%d:%d:guard", g.PID(), gst.StartTime)
	root, _ := readStat(cmd.Process.Pid)
	fmt.Printf(" %d:%d:%s", root.PID, root.StartTime, root.Comm)
	for _, m := range tr.Members() {
		if m.PID != root.PID && m.PID != orphan.PID {
			st, _ := readStat(m.PID)
			fmt.Printf(" %d:%d:%s", m.PID, m.StartTime, st.Comm)
		}
	}
	st, _ := readStat(orphan.PID)
	fmt.Printf(" %d:%d:%s\n", orphan.PID, orphan.StartTime, st.Comm)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}
