//go:build linux

package proctree

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestGuardAfterParentSIGKILL re-execs the test binary as a fake agentty
// that starts a guard and a marked tree (including a setsid child and one
// that scrubbed its marker), then SIGKILLs it: everything must go. Without a
// guard the sleeps must survive their parent, which shows the check can fail.
func TestGuardAfterParentSIGKILL(t *testing.T) {
	for _, withGuard := range []bool{true, false} {
		t.Run(fmt.Sprintf("guard=%v", withGuard), func(t *testing.T) {
			inst := newInstance(t)
			procs := runFakeParent(t, inst, withGuard)
			if withGuard {
				for _, p := range procs {
					waitFor(t, fmt.Sprintf("%s %d to die", p.Comm, p.PID), func() bool { return !alive(p) })
				}
				if left := liveMarked(t, EnvKey+"="+inst+"/"); len(left) != 0 {
					t.Fatalf("marked processes left: %v", left)
				}
				return
			}
			t.Cleanup(func() {
				k := newKiller(protectSelf())
				defer k.close()
				k.signal(procs[1:], nil, syscall.SIGKILL)
			})
			// sh dies by Pdeathsig; its children have no one to kill them.
			waitFor(t, "sh to die", func() bool { return !alive(procs[1]) })
			for _, p := range procs[2:] {
				if !alive(p) {
					t.Fatalf("%s %d died without a guard", p.Comm, p.PID)
				}
			}
		})
	}
}

// runFakeParent starts the fake agentty, collects what it reports (guard or
// placeholder first, then the tree in Descendants order, root first) and
// SIGKILLs it.
func runFakeParent(t *testing.T, inst string, withGuard bool) []Proc {
	t.Helper()
	procs := runFake(t, modeEnv+"=fakeparent", instanceEnv+"="+inst, fmt.Sprintf("%s=%v", withGuardEnv, withGuard))
	if got := commsOf(procs[1:]); strings.Join(got, ",") != "sh,sleep,sleep,sleep" || procs[1].Comm != "sh" {
		t.Fatalf("fake parent reported %v", procs)
	}
	return procs
}

// runFake starts this test binary as a fake agentty with env (besides
// ours, without the marker), reads the "pid:starttime:comm" line it
// reports, then SIGKILLs it. Its stdin is held open: it waits on it.
func runFake(t *testing.T, env ...string) []Proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*waitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(withoutEnv(os.Environ(), EnvKey), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("fake parent: %q, %v", line, err)
	}
	var procs []Proc
	for _, f := range strings.Fields(line) {
		var p Proc
		if _, err := fmt.Sscanf(f, "%d:%d:%s", &p.PID, &p.StartTime, &p.Comm); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		procs = append(procs, p)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return procs
}

// fakeParent plays agentty for TestGuardAfterParentSIGKILL. It prints
// "pid:starttime:comm" for the guard (0:0:none without one) and every tree
// process, then waits to be killed.
func fakeParent() int {
	inst := os.Getenv(instanceEnv)
	sp := NewSpawner()
	report := "0:0:none"
	// As agentty does: the guard starts in the background and the tree is
	// started at once, without waiting for it.
	var guard *PendingGuard
	if os.Getenv(withGuardEnv) == "true" {
		guard = BeginGuard(sp, os.Args[0], []string{guardArg}, inst)
	}
	entry := EnvKey + "=" + inst + "/s1"
	cmd := exec.Command("sh", "-c", "sleep 1000 & setsid sleep 1000 & env -u "+EnvKey+" sleep 1000 & wait")
	cmd.Env = append(withoutEnv(os.Environ(), EnvKey), entry)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var err error
	sp.Do(func() { err = cmd.Start() })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if guard != nil {
		g, err := guard.Wait()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		gst, err := readStat(g.PID())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		report = fmt.Sprintf("%d:%d:guard", g.PID(), gst.StartTime)
	}
	var procs []Proc
	ok := poll(func() bool {
		procs, err = Descendants(cmd.Process.Pid, entry)
		return err == nil && strings.Join(commsOf(procs), ",") == "sh,sleep,sleep,sleep"
	})
	if !ok {
		fmt.Fprintf(os.Stderr, "tree never complete: %+v %v\n", procs, err)
		return 1
	}
	fmt.Print(report)
	for _, p := range procs {
		fmt.Printf(" %d:%d:%s", p.PID, p.StartTime, p.Comm)
	}
	fmt.Println()
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// TestGuardSweep covers the in-process API: the guard sweeps when told to
// (Close) or on SIGTERM (its parent-death signal), or both at once (one
// sweep runs; the other waits for it), kills only marked processes of its
// instance, and exits cleanly.
func TestGuardSweep(t *testing.T) {
	sp := NewSpawner()
	defer sp.Close()
	for _, trigger := range []string{"close", "sigterm", "sigterm and close"} {
		t.Run(trigger, func(t *testing.T) {
			inst := newInstance(t)
			mine := startMarkedAs(t, inst+"/s1", "setsid sleep 1000")
			other := startMarkedAs(t, inst+"x/s1", "exec sleep 1000") // instance sharing a prefix
			g, err := StartGuard(sp, os.Args[0], []string{guardArg}, inst)
			if err != nil {
				t.Fatal(err)
			}
			if trigger != "close" {
				if err := syscall.Kill(g.PID(), syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			if trigger == "sigterm" {
				<-g.Done()
			}
			if err := g.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if sig := termSignal(mine.wait()); sig != syscall.SIGKILL {
				t.Fatalf("marked process ended by %v, want SIGKILL", sig)
			}
			if left := liveMarked(t, EnvKey+"="+inst+"/"); len(left) != 0 {
				t.Fatalf("marked processes left: %v", left)
			}
			st, err := readStat(other.pid())
			if err != nil || st.dead() {
				t.Fatalf("other instance's process was killed: %v", err)
			}
		})
	}
}

// TestBeginGuard_SpawnsWaitForArming starts a guard in the background and
// at once runs a spawner job, as a session start would: when the job runs,
// the guard must be armed already (starting a guard takes milliseconds; the
// job is handed over microseconds after BeginGuard returns).
func TestBeginGuard_SpawnsWaitForArming(t *testing.T) {
	for i := range 20 {
		sp := NewSpawner()
		p := BeginGuard(sp, os.Args[0], []string{guardArg}, newInstance(t))
		var armed bool
		sp.Do(func() { armed = p.Armed() })
		g, err := p.Wait()
		if err != nil {
			sp.Close()
			t.Fatalf("round %d: %v", i, err)
		}
		if !armed {
			t.Errorf("round %d: a spawner job ran before the guard was armed", i)
		}
		if st, err := readStat(g.PID()); err != nil || st.dead() {
			t.Errorf("round %d: guard %d is not running (%v)", i, g.PID(), err)
		}
		if err := g.Close(); err != nil {
			t.Errorf("round %d: Close: %v", i, err)
		}
		sp.Close()
	}
}

func TestStartGuardRejectsBadInstance(t *testing.T) {
	for _, inst := range []string{"", "a/b", "a=b"} {
		if _, err := StartGuard(nil, os.Args[0], []string{guardArg}, inst); err == nil {
			t.Errorf("StartGuard(%q) succeeded", inst)
		}
	}
}
