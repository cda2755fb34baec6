//go:build linux && (amd64 || arm64)

package inputwait

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// deadline is generous so a loaded 2-core CI machine still passes.
const deadline = 10 * time.Second

// outBuf collects a child's output and lets tests wait for text in it.
type outBuf struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func newOutBuf() *outBuf { return &outBuf{changed: make(chan struct{})} }

func (o *outBuf) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.b.Write(p)
	close(o.changed)
	o.changed = make(chan struct{})
	return len(p), nil
}

func (o *outBuf) snapshot() (string, chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String(), o.changed
}

// waitFor blocks until the output contains s.
func (o *outBuf) waitFor(t testing.TB, s string) {
	t.Helper()
	o.waitForWithin(t, s, deadline)
}

// waitForWithin is waitFor for output that takes longer than deadline.
func (o *outBuf) waitForWithin(t testing.TB, s string, d time.Duration) {
	t.Helper()
	timeout := time.After(d)
	for {
		text, ch := o.snapshot()
		if strings.Contains(text, s) {
			return
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("output never contained %q; got %q", s, text)
		}
	}
}

// waitMatch blocks until re matches the output and returns its submatches:
// a line printed in one write may still arrive in pieces.
func (o *outBuf) waitMatch(t testing.TB, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.After(deadline)
	for {
		text, ch := o.snapshot()
		if m := re.FindStringSubmatch(text); m != nil {
			return m
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("output never matched %s; got %q", re, text)
		}
	}
}

// child is a started program plus what Inspect needs to look at it.
type child struct {
	cmd    *exec.Cmd
	target Target
	out    *outBuf
	insp   *Inspector // the child's cached prober, closed at cleanup
}

// childInspectors maps a child's root pid to its Inspector: the wait
// helpers probe through it, so every test that waits exercises the cached
// path, while the tests' direct Inspect calls exercise the uncached one.
var childInspectors sync.Map

// probe inspects target through its child's Inspector if it has one.
func probe(target Target) (Probe, error) {
	if x, ok := childInspectors.Load(target.Root); ok {
		return x.(*Inspector).Inspect(target)
	}
	return Inspect(target)
}

// register gives c an Inspector and closes it when the test ends.
func (c *child) register(t testing.TB) {
	c.insp = &Inspector{}
	childInspectors.Store(c.target.Root, c.insp)
	t.Cleanup(func() {
		childInspectors.Delete(c.target.Root)
		c.insp.Close()
	})
}

// startPTY runs argv as a session leader on a fresh PTY, the way agentty
// does, and drains the master so the child never blocks on output.
func startPTY(t testing.TB, argv ...string) *child {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("pty.Open: %v", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(tty.Fd()), &st); err != nil {
		t.Fatalf("fstat tty: %v", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "TERM=xterm", "PS1=$ ")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		master.Close()
		tty.Close()
		t.Fatalf("start %v: %v", argv, err)
	}
	tty.Close()
	c := &child{cmd: cmd, out: newOutBuf(),
		target: Target{Root: cmd.Process.Pid, PTY: master, TTY: st.Rdev}}
	c.register(t)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(c.out, master)
	}()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		master.Close()
		<-drained
	})
	return c
}

// startPipe runs argv in its own process group with stdin a pipe whose
// write end becomes Target.Stdin, and stdout/stderr collected.
func startPipe(t testing.TB, argv ...string) *child {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	inR.Close()
	outW.Close()
	c := &child{cmd: cmd, out: newOutBuf(), target: Target{Root: cmd.Process.Pid, Stdin: inW}}
	c.register(t)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(c.out, outR)
	}()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		inW.Close()
		<-drained
		outR.Close()
	})
	return c
}

// waitState re-inspects until the probe satisfies ok or the deadline passes.
// Polling is the only option: the kernel sends no event when a process
// blocks in a syscall.
func waitState(t testing.TB, target Target, what string, ok func(Probe) bool) Probe {
	t.Helper()
	end := time.Now().Add(deadline)
	backoff := time.Millisecond
	var last Probe
	for {
		p, err := probe(target)
		if err != nil {
			t.Fatalf("Inspect: %v", err)
		}
		if ok(p) {
			return p
		}
		last = p
		if time.Now().After(end) {
			t.Fatalf("never reached %s; last probe: %+v", what, last)
		}
		<-time.After(backoff)
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

func waitFor(t testing.TB, target Target, want State) Probe {
	t.Helper()
	return waitState(t, target, string(want), func(p Probe) bool { return p.State == want })
}

// waitDetail waits for a probe in state want whose Detail contains sub,
// which pins down that the program reached its steady blocking point.
func waitDetail(t testing.TB, target Target, want State, sub string) Probe {
	t.Helper()
	return waitState(t, target, string(want)+" with "+sub, func(p Probe) bool {
		return p.State == want && strings.Contains(p.Detail, sub)
	})
}

func mkfifo(path string) error { return unix.Mkfifo(path, 0o600) }

// assertStays checks that a program in its steady state keeps yielding the
// same state over a bounded number of probes spread over ~250 ms.
func assertStays(t testing.TB, target Target, want State) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for i := 0; i < 50; i++ {
		p, err := probe(target)
		if err != nil {
			t.Fatalf("Inspect: %v", err)
		}
		if p.State != want {
			t.Fatalf("probe %d: state %s (%s), want %s", i, p.State, p.Detail, want)
		}
		<-tick.C
	}
}
