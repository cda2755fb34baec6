//go:build linux

package proctree

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitLimit is generous because CI machines are small and loaded.
const waitLimit = 10 * time.Second

// newInstance returns a fresh instance id so concurrent test runs never see
// each other's marked processes.
func newInstance(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "t" + hex.EncodeToString(b)
}

// child is a marked test process that is always killed and reaped.
type child struct {
	cmd      *exec.Cmd
	entry    string // the full marker environment entry
	waitOnce sync.Once
	state    *os.ProcessState
}

// startMarked runs script under sh like a pipe session: own process group,
// Pdeathsig, and the marker entry in its environment.
func startMarked(t testing.TB, script string) *child {
	t.Helper()
	return startMarkedAs(t, newInstance(t)+"/s1", script)
}

// startMarkedAs is startMarked with a chosen marker value.
func startMarkedAs(t testing.TB, value, script string) *child {
	t.Helper()
	entry := EnvKey + "=" + value
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(withoutEnv(os.Environ(), EnvKey), entry)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, entry: entry}
	t.Cleanup(func() {
		_, _ = Terminate(context.Background(), cmd.Process.Pid, entry, 0)
		c.wait()
	})
	return c
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// wait reaps the root once and returns its final state.
func (c *child) wait() *os.ProcessState {
	c.waitOnce.Do(func() {
		_ = c.cmd.Wait()
		c.state = c.cmd.ProcessState
	})
	return c.state
}

// poll checks cond with a short backoff until it holds (true) or waitLimit
// passes (false). It is for states the kernel announces with no event, such
// as a process appearing in /proc.
func poll(cond func() bool) bool {
	deadline := time.Now().Add(waitLimit)
	backoff := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		timer := time.NewTimer(backoff)
		<-timer.C
		backoff = min(2*backoff, 50*time.Millisecond)
	}
	return true
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !poll(cond) {
		t.Fatalf("timed out after %v waiting for %s", waitLimit, what)
	}
}

// waitTree waits until Descendants reports exactly the given comms (sorted)
// and returns that result. Exact comms also rule out a fork caught before its
// exec (comm "sh" or "setsid" instead of "sleep").
func waitTree(t testing.TB, root int, entry string, comms ...string) []Proc {
	t.Helper()
	slices.Sort(comms)
	var procs []Proc
	waitFor(t, "tree "+entry, func() bool {
		var err error
		procs, err = Descendants(root, entry)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Equal(commsOf(procs), comms)
	})
	return procs
}

func commsOf(procs []Proc) []string {
	out := make([]string, 0, len(procs))
	for _, p := range procs {
		out = append(out, p.Comm)
	}
	slices.Sort(out)
	return out
}

// liveMarked scans /proc independently of the package code for live
// processes whose environment has an entry starting with prefix.
func liveMarked(t testing.TB, prefix string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		found := false
		for _, kv := range bytes.Split(env, []byte{0}) {
			found = found || bytes.HasPrefix(kv, []byte(prefix))
		}
		if !found {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil || bytes.Contains(stat, []byte(") Z ")) {
			continue
		}
		var pid int
		for _, c := range e.Name() {
			pid = pid*10 + int(c-'0')
		}
		pids = append(pids, pid)
	}
	return pids
}

// alive reports whether the exact process instance p still runs.
func alive(p Proc) bool { return sameLiveProc(procKey{p.PID, p.StartTime}) }

// termSignal returns the signal that ended a process, or 0 if it exited.
func termSignal(st *os.ProcessState) syscall.Signal {
	ws := st.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return 0
	}
	return ws.Signal()
}
