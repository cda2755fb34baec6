//go:build linux && (amd64 || arm64)

package inputwait

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPTYAwaiting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		argv   []string
		want   State
		detail string // substring Detail must contain
		needs  string // binary that must be on PATH
	}{
		{"python REPL", []string{"python3", "-q"}, AwaitingInput, "pselect6 on fd 0 (tty)", ""},
		{"bash prompt", []string{"bash", "--norc", "--noprofile", "-i"}, AwaitingInput, "(bash)", ""},
		{"sh waiting on python REPL", []string{"sh", "-c", "python3 -q"}, AwaitingInput, "(python3) in pselect6", ""},
		{"pipeline cat | cat", []string{"sh", "-c", "cat | cat"}, AwaitingInput, "(cat) in read on fd 0 (tty)", ""},
		{"node REPL", []string{"node", "-i"}, AwaitingInput, "(node) in epoll", "node"},
		{"python waiting on cat with a sleeping thread", []string{"python3", "-c",
			"import threading,time,subprocess; threading.Thread(target=lambda: time.sleep(1000), daemon=True).start(); subprocess.run(['cat'])"},
			AwaitingInput, "(cat) in read on fd 0 (tty)", ""},
		{"stopped sibling", []string{"sh", "-c", "sleep 1000 & kill -STOP $!; cat"},
			AwaitingInput, "(cat) in read on fd 0 (tty)", ""},
		{"read from /dev/tty", []string{"sh", "-c", "read x < /dev/tty; sleep 30"},
			AwaitingInput, "(sh) in read on fd 0 (/dev/tty)", ""},
		{"bash read -s", []string{"bash", "-c", `read -s -p "Password: " pw; echo; sleep 30`}, AwaitingPassword, "echo off", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.needs != "" {
				if _, err := exec.LookPath(tc.needs); err != nil {
					t.Skipf("%s not on PATH", tc.needs)
				}
			}
			c := startPTY(t, tc.argv...)
			// The steady state, not the first probe: a just-exec'd child
			// can briefly be seen under its pre-exec name.
			p := waitDetail(t, c.target, tc.want, tc.detail)
			t.Logf("%s: %s", p.State, p.Detail)
			if !strings.HasPrefix(p.Detail, "pid ") {
				t.Errorf("Detail = %q, want it to start with the pid", p.Detail)
			}
		})
	}
}

func TestPTYRunning(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		argv   []string
		steady string // Detail substring showing the program reached its blocking point
	}{
		{"sleep", []string{"sleep", "30"}, "nanosleep, not on the input"},
		{"select on a socket", []string{"python3", "-c",
			"import socket,select; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); select.select([s],[],[])"},
			"select"},
		{"epoll on a socket", []string{"python3", "-c",
			"import socket,selectors; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); " +
				"sel=selectors.EpollSelector(); sel.register(s, selectors.EVENT_READ); sel.select()"},
			"epoll"},
		{"read on a FIFO", []string{"python3", "-c",
			"import os; fd=os.open('" + fifo + "', os.O_RDWR); os.read(fd, 1)"},
			"in read, not on the input"},
		{"sh waiting on sleep", []string{"sh", "-c", "sleep 30; true"}, "(sleep) is blocked in"},
		// A sibling asleep in a timer does not veto (TestInspect_SleepingMember).
		{"reader with a sibling on a socket", []string{"sh", "-c",
			`python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); s.accept()' & cat`},
			"(python3) is blocked in accept"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := startPTY(t, tc.argv...)
			waitDetail(t, c.target, Running, tc.steady)
			assertStays(t, c.target, Running)
		})
	}
}

// TestPTYShellJob follows an interactive shell handing the terminal to a
// job (its own process group) and the job going busy.
func TestPTYShellJob(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "bash", "--norc", "--noprofile", "-i")
	waitDetail(t, c.target, AwaitingInput, "(bash)")
	if _, err := c.target.PTY.Write([]byte("python3 -q\n")); err != nil {
		t.Fatal(err)
	}
	p := waitDetail(t, c.target, AwaitingInput, "(python3) in pselect6 on fd 0 (tty)")
	if _, err := c.target.PTY.Write([]byte("import time; time.sleep(30)\n")); err != nil {
		t.Fatal(err)
	}
	// Waking from pselect6, python3 can be caught between the reads of
	// its syscall and of its select set (the set is rebuilt before each
	// call): Running, "blocked in pselect6, not on the input". Wait for
	// the sleep itself.
	waitState(t, c.target, "python3 asleep", func(p Probe) bool {
		return p.State == Running && strings.Contains(p.Detail, "(python3) is blocked in") && strings.Contains(p.Detail, "nanosleep")
	})
	// A probe reads the run counters before the states, so the one that
	// first sees python asleep may hold its counters from before it ran:
	// woken by the write but not yet on a CPU when they were read (CI under
	// load did this). Any probe after it reads them after python ran.
	q, err := probe(c.target)
	if err != nil {
		t.Fatal(err)
	}
	if p.Fingerprint == q.Fingerprint {
		t.Errorf("fingerprint %x unchanged", p.Fingerprint)
	}
	assertStays(t, c.target, Running)
}

// TestNoChildrenFiles forces the ppid-scan fallback for kernels without
// /proc/PID/task/TID/children. Not parallel: it flips a package switch
// while the parallel tests are still paused.
func TestNoChildrenFiles(t *testing.T) {
	noChildrenFiles.Store(true)
	defer noChildrenFiles.Store(false)
	c := startPTY(t, "sh", "-c", "cat | cat")
	waitDetail(t, c.target, AwaitingInput, "(cat) in read on fd 0 (tty)")
	if n := len(countMembers(t, c.target)); n != 3 {
		t.Errorf("found %d members, want 3 (sh, cat, cat)", n)
	}
}

// countMembers runs one walk and returns the member pids.
func countMembers(t testing.TB, target Target) []int {
	t.Helper()
	in := inspectors.Get().(*inspector)
	defer inspectors.Put(in)
	in.reset()
	v, err := queryPTY(target.PTY, target.TTY)
	if err != nil {
		t.Fatal(err)
	}
	in.ptyMode, in.tty, in.pgid = true, v.tty, v.pgid
	if !in.walk(target.Root) {
		t.Fatal("root gone")
	}
	var pids []int
	for _, m := range in.members {
		pids = append(pids, m.pid)
	}
	return pids
}

// TestScanGroup checks the /proc scan used when the group leader is not
// among Root's descendants: it must find the group and nothing else.
func TestScanGroup(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "sh", "-c", "cat | cat")
	waitFor(t, c.target, AwaitingInput)
	walked := countMembers(t, c.target)
	in := inspectors.Get().(*inspector)
	defer inspectors.Put(in)
	in.reset()
	in.ptyMode, in.pgid, in.rootSid = true, c.target.Root, c.target.Root
	in.scanGroup()
	var scanned []int
	for _, m := range in.members {
		scanned = append(scanned, m.pid)
	}
	slices.Sort(walked)
	slices.Sort(scanned)
	if len(walked) != 3 || !slices.Equal(walked, scanned) {
		t.Errorf("walk found %v, scan found %v; want the same 3 pids", walked, scanned)
	}
}

// TestPTYPromptThenWork follows a prompt being answered: the fingerprint
// must move between the probe before the write and the busy state after.
func TestPTYPromptThenWork(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "sh", "-c", `read -p "Continue? [y/N] " x; echo got $x; sleep 30`)
	before := waitFor(t, c.target, AwaitingInput)
	if !strings.Contains(before.Detail, "(sh) in read on fd 0 (tty)") {
		t.Errorf("Detail = %q", before.Detail)
	}
	if _, err := c.target.PTY.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	c.out.waitFor(t, "got y")
	after := waitDetail(t, c.target, Running, "nanosleep")
	if after.Fingerprint == before.Fingerprint {
		t.Errorf("fingerprint %x unchanged across the answered prompt", after.Fingerprint)
	}
}

// TestFingerprintStableWhileIdle: a program that does not run keeps its
// fingerprint, so a caller can tell "still the old wait" from a new one.
func TestFingerprintStableWhileIdle(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "cat")
	first := waitFor(t, c.target, AwaitingInput)
	for i := 0; i < 20; i++ {
		p, err := Inspect(c.target)
		if err != nil {
			t.Fatal(err)
		}
		if p.State != AwaitingInput || p.Fingerprint != first.Fingerprint {
			t.Fatalf("probe %d: %s %x, want %s %x", i, p.State, p.Fingerprint, AwaitingInput, first.Fingerprint)
		}
	}
	if _, err := c.target.PTY.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	// cat echoes the line itself (after the tty's echo), so wait for two copies.
	c.out.waitFor(t, "ping\r\nping\r\n")
	p := waitFor(t, c.target, AwaitingInput)
	if p.Fingerprint == first.Fingerprint {
		t.Errorf("fingerprint %x unchanged after cat consumed a line", p.Fingerprint)
	}
}

func TestPipeAwaiting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		argv   []string
		detail string
	}{
		{"cat", []string{"cat"}, "(cat) in read on fd 0 (pipe)"},
		{"pipeline", []string{"sh", "-c", "cat | cat"}, "(cat) in read on fd 0 (pipe)"},
		{"shell waiting on python", []string{"sh", "-c", "python3 -c 'import sys; sys.stdin.readline()'"},
			"(python3) in read on fd 0 (pipe)"},
		// glibc may implement select with pselect6 and poll with ppoll.
		{"select on stdin", []string{"python3", "-c", "import select,sys; select.select([sys.stdin],[],[])"},
			"select"},
		{"poll on stdin", []string{"python3", "-c", "import select; p=select.poll(); p.register(0, select.POLLIN); p.poll()"},
			"poll"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := startPipe(t, tc.argv...)
			// A child that has just exec'd can be seen reading under the
			// name it had before exec (comm and syscall are two reads of
			// /proc), so wait for the steady state rather than the first
			// awaiting probe.
			p := waitDetail(t, c.target, AwaitingInput, tc.detail)
			if !strings.HasSuffix(p.Detail, " on fd 0 (pipe)") {
				t.Errorf("Detail = %q, want %q and fd 0 (pipe)", p.Detail, tc.detail)
			}
		})
	}
}

func TestPipeCat(t *testing.T) {
	t.Parallel()
	c := startPipe(t, "cat")
	p := waitFor(t, c.target, AwaitingInput)
	if want := "(cat) in read on fd 0 (pipe)"; !strings.Contains(p.Detail, want) {
		t.Errorf("Detail = %q, want %q", p.Detail, want)
	}
	if _, err := c.target.Stdin.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	c.out.waitFor(t, "hello\n")
	waitFor(t, c.target, AwaitingInput)
}

func TestPipeReadlineThenSleep(t *testing.T) {
	t.Parallel()
	c := startPipe(t, "python3", "-c", "import sys; sys.stdin.readline(); import time; time.sleep(30)")
	waitFor(t, c.target, AwaitingInput)
	if _, err := c.target.Stdin.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	waitDetail(t, c.target, Running, "nanosleep")
	assertStays(t, c.target, Running)
}

// TestPipePendingInput: bytes sitting in the pipe mean the reader is about
// to wake, whatever it is blocked in right now.
func TestPipePendingInput(t *testing.T) {
	t.Parallel()
	// The shell stays in wait4 while sleep runs, so nobody drains the pipe.
	c := startPipe(t, "sh", "-c", "sleep 30; cat")
	waitDetail(t, c.target, Running, "nanosleep")
	if _, err := c.target.Stdin.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	assertStays(t, c.target, Running)
}

func TestPipeStdinClosed(t *testing.T) {
	t.Parallel()
	c := startPipe(t, "cat")
	// agentty closed its end: Stdin nil. cat itself is still blocked until
	// the pipe gets EOF, which the test's own copy keeps from happening.
	target := c.target
	target.Stdin = nil
	p := waitDetail(t, target, Running, "stdin is closed")
	if p.Fingerprint == 0 {
		t.Error("fingerprint is zero")
	}
	assertStays(t, target, Running)
}

func TestRootGone(t *testing.T) {
	t.Parallel()
	t.Run("zombie", func(t *testing.T) {
		t.Parallel()
		c := startPipe(t, "true")
		// Not reaped yet: Inspect must see the zombie as gone.
		p := waitDetail(t, c.target, Running, "has exited")
		if p.Fingerprint != 0 {
			t.Errorf("fingerprint = %x, want 0", p.Fingerprint)
		}
	})
	t.Run("reaped", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command("true")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		p, err := Inspect(Target{Root: cmd.Process.Pid})
		if err != nil || p.State != Running {
			t.Fatalf("Inspect = %+v, %v; want Running, nil", p, err)
		}
	})
}

func TestInvalidTarget(t *testing.T) {
	p, err := Inspect(Target{})
	if !errors.Is(err, ErrInvalidTarget) || p.State != Running {
		t.Fatalf("Inspect(Target{}) = %+v, %v", p, err)
	}
}

func TestClosedPTY(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "cat")
	waitFor(t, c.target, AwaitingInput)
	master, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	master.Close()
	target := c.target
	target.PTY = master
	if p, err := Inspect(target); !errors.Is(err, os.ErrClosed) || p.State != Running {
		t.Fatalf("Inspect with closed master = %+v, %v; want Running, os.ErrClosed", p, err)
	}
}

// TestConcurrent exercises the pooled scratch state under -race.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "python3", "-q")
	waitFor(t, c.target, AwaitingInput)
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				p, err := Inspect(c.target)
				if err == nil && p.State != AwaitingInput {
					err = errors.New("state " + string(p.State) + ": " + p.Detail)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkInspect measures one probe of an idle program, the hot path of
// agentty's read loop: uncached (Inspect) and through an Inspector that
// keeps the /proc files open, as a session does.
func BenchmarkInspect(b *testing.B) {
	benches := []struct {
		name string
		argv []string
		pipe bool
	}{
		{"python3-REPL", []string{"python3", "-q"}, false},
		{"python3-pipe", []string{"python3", "-i", "-q"}, true},
		{"sh-cat-pipeline", []string{"sh", "-c", "cat | cat"}, false},
		{"node-REPL", []string{"node", "-i"}, false},
	}
	for _, bc := range benches {
		for _, cached := range []bool{false, true} {
			name := bc.name + "/uncached"
			if cached {
				name = bc.name + "/cached"
			}
			b.Run(name, func(b *testing.B) {
				if _, err := exec.LookPath(bc.argv[0]); err != nil {
					b.Skipf("%s not on PATH", bc.argv[0])
				}
				var c *child
				if bc.pipe {
					c = startPipe(b, bc.argv...)
				} else {
					c = startPTY(b, bc.argv...)
				}
				waitFor(b, c.target, AwaitingInput)
				inspect := Inspect
				if cached {
					inspect = c.insp.Inspect
				}
				b.ReportAllocs()
				for b.Loop() {
					p, err := inspect(c.target)
					if err != nil || p.State != AwaitingInput {
						b.Fatalf("Inspect = %+v, %v", p, err)
					}
				}
			})
		}
	}
}

// TestDerivedTTY: a caller that leaves TTY zero gets the slave device from
// the master (TIOCGPTN), with the same answer.
func TestDerivedTTY(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "python3", "-q")
	want := waitFor(t, c.target, AwaitingInput)
	target := c.target
	target.TTY = 0
	got, err := Inspect(target)
	if err != nil || got.State != AwaitingInput || got.Detail != want.Detail {
		t.Fatalf("Inspect with TTY 0 = %+v, %v; want %+v", got, err, want)
	}
}

// TestStoppedJob: a job stopped with ^Z leaves the terminal to the shell,
// which is then the one awaiting input.
func TestStoppedJob(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "bash", "--norc", "--noprofile", "-i")
	waitDetail(t, c.target, AwaitingInput, "(bash)")
	if _, err := c.target.PTY.Write([]byte("cat\n")); err != nil {
		t.Fatal(err)
	}
	waitDetail(t, c.target, AwaitingInput, "(cat) in read")
	if _, err := c.target.PTY.Write([]byte{0x1a}); err != nil { // ^Z
		t.Fatal(err)
	}
	c.out.waitFor(t, "Stopped")
	waitDetail(t, c.target, AwaitingInput, "(bash)")
}
