//go:build linux && (amd64 || arm64)

package inputwait

import (
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// inferred asks for the inferred verdict on c's target, as macOS and
// AGENTTY_PORTABLE=verdict do by default.
func inferred(c *child) Target {
	t := c.target
	t.Verdict = VerdictInferred
	return t
}

// TestInferred_Programs runs the inferred verdict on Linux against real
// programs on a PTY: the verdict macOS gives, from the facts macOS has.
func TestInferred_Programs(t *testing.T) {
	t.Parallel()
	t.Run("shell prompt", func(t *testing.T) {
		t.Parallel()
		c := startPTY(t, "bash", "--norc", "--noprofile", "-i")
		p := waitState(t, inferred(c), "awaiting_input", func(p Probe) bool { return p.State == AwaitingInput })
		if !strings.HasPrefix(p.Detail, "inferred: pgrp ") || !strings.Contains(p.Detail, "(bash) 1/1 threads waiting") ||
			!strings.HasSuffix(p.Detail, "tty input queue empty") {
			t.Errorf("detail %q", p.Detail)
		}
	})
	t.Run("prompt without newline", func(t *testing.T) {
		t.Parallel()
		c := startPTY(t, "sh", "-c", "printf 'Continue? [Y/n] '; read a; echo got=$a; sleep 30")
		waitFor(t, inferred(c), AwaitingInput)
		c.out.waitFor(t, "Continue? [Y/n] ")
		c.target.PTY.WriteString("y\n")
		c.out.waitFor(t, "got=y")
		// Now sleep 30 runs, in the canonical mode the shell left: it reads
		// as awaiting input (no fact tells a sleep from a read), but only
		// after the long window.
		p := waitFor(t, inferred(c), AwaitingInput)
		m := regexp.MustCompile(`^inferred: pgrp \d+ \((sh|sleep)\) \d+/\d+ threads waiting, no CPU for (\d+) ms, tty input queue empty$`).FindStringSubmatch(p.Detail)
		if m == nil {
			t.Fatalf("detail %q", p.Detail)
		}
		if quiet, _ := strconv.Atoi(m[2]); quiet < int(inferCanonQuiet/time.Millisecond) {
			t.Errorf("a canonical-mode verdict after %d ms of quiet, want at least %v", quiet, inferCanonQuiet)
		}
	})
	t.Run("password", func(t *testing.T) {
		t.Parallel()
		c := startPTY(t, "bash", "-c", "read -s -p 'Password: ' x; echo; echo len=${#x}; sleep 30")
		p := waitFor(t, inferred(c), AwaitingPassword)
		if !strings.HasSuffix(p.Detail, "; echo off") {
			t.Errorf("detail %q", p.Detail)
		}
		c.target.PTY.WriteString("hunter2\n")
		c.out.waitFor(t, "len=7")
	})
	t.Run("busy loop", func(t *testing.T) {
		t.Parallel()
		c := startPTY(t, "sh", "-c", "while :; do :; done")
		waitDetail(t, inferred(c), Running, "(sh)")
		assertStays(t, inferred(c), Running)
	})
	t.Run("short sleeps", func(t *testing.T) {
		t.Parallel()
		c := startPTY(t, "sh", "-c", "while sleep 0.1; do :; done")
		waitDetail(t, inferred(c), Running, "inferred: ")
		assertStays(t, inferred(c), Running)
	})
	t.Run("type-ahead", func(t *testing.T) {
		t.Parallel()
		c := startPTY(t, "sh", "-c", "echo ready; sleep 30; read x")
		c.out.waitFor(t, "ready")
		c.target.PTY.WriteString("abc\n")
		// Quiet, sleeping, in canonical mode: without the queue it would
		// read as awaiting input over the agent's own unread line.
		waitDetail(t, inferred(c), Running, "inferred: 4 bytes typed, not read")
		assertStays(t, inferred(c), Running)
	})
	t.Run("stopped", func(t *testing.T) {
		t.Parallel()
		c := startPTY(t, "sh", "-c", "kill -STOP $$")
		waitDetail(t, inferred(c), Running, ") is stopped")
	})
	t.Run("blocked writing output", func(t *testing.T) {
		t.Parallel()
		c := startUndrained(t, "sh", "-c", "while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done")
		waitDetail(t, inferred(c), Running, "inferred: blocked writing output (")
		assertStays(t, inferred(c), Running)
	})
}

// startUndrained is startPTY without anyone reading the master: the
// program's output fills the terminal and its writer blocks.
func startUndrained(t *testing.T, argv ...string) *child {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("pty.Open: %v", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	tty.Close()
	c := &child{cmd: cmd, out: newOutBuf(), target: Target{Root: cmd.Process.Pid, PTY: master}}
	c.register(t)
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		go io.Copy(io.Discard, master) // a writer blocked in the kernel may need room to die
		cmd.Wait()
		master.Close()
	})
	return c
}

// TestInferred_Exchanges loops the exchange an agent makes, 50 times: a
// line typed to a program waiting in canonical mode, the program's answer,
// and a fresh verdict. Each new wait must come with a fingerprint other
// than the one from before the line was typed (the session's input gate
// tells stale verdicts by it), and the answer must be out by then.
func TestInferred_Exchanges(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "sh", "-c", `while read x; do echo "got $x"; done`)
	target := inferred(c)
	p := waitFor(t, target, AwaitingInput)
	for i := range 50 {
		before := p.Fingerprint
		line := "line" + strconv.Itoa(i)
		c.target.PTY.WriteString(line + "\n")
		p = waitState(t, target, "a new wait", func(p Probe) bool { return p.State == AwaitingInput && p.Fingerprint != before })
		c.out.waitFor(t, "got "+line+"\r\n")
	}
}

// TestInferred_ConcurrentProbes: probes of one Inspector that overlap do
// not share its history; the one that finds it busy samples afresh, which
// cannot show quiet, and answers Running.
func TestInferred_ConcurrentProbes(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "bash", "--norc", "--noprofile", "-i")
	target := inferred(c)
	waitFor(t, target, AwaitingInput)
	var wg sync.WaitGroup
	errs := make(chan error, 4*50)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				p, err := c.insp.Inspect(target)
				switch {
				case err != nil:
					errs <- err
				case p.State != AwaitingInput && p.Detail != "inferred: pid "+strconv.Itoa(c.target.Root)+" (bash) ran since the last look":
					errs <- fmt.Errorf("probe %s %q", p.State, p.Detail)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkInferred measures one inferred probe of an idle program through
// its Inspector, as a session makes it (compare BenchmarkInspect/cached).
func BenchmarkInferred(b *testing.B) {
	for _, bc := range []struct {
		name string
		argv []string
	}{
		{"python3-REPL", []string{"python3", "-q"}},
		{"sh-cat-pipeline", []string{"sh", "-c", "cat | cat"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := startPTY(b, bc.argv...)
			target := inferred(c)
			waitFor(b, target, AwaitingInput)
			b.ReportAllocs()
			for b.Loop() {
				p, err := c.insp.Inspect(target)
				if err != nil || p.State != AwaitingInput {
					b.Fatalf("Inspect = %+v, %v", p, err)
				}
			}
		})
	}
}

// TestInferred_KeepsFilesUntilClose: the inferred sampler keeps the
// group's /proc files open between probes, drops a task's once it has
// ended, and closes them all on Close; probes after it still answer.
func TestInferred_KeepsFilesUntilClose(t *testing.T) {
	t.Parallel()
	c := startPTY(t, "bash", "--norc", "--noprofile", "-i")
	target := inferred(c)
	waitFor(t, target, AwaitingInput)
	sc := &c.insp.inf.scratch
	// bash alone: its stat, schedstat and children.
	if n := sc.cache.len(); n != 3 {
		t.Errorf("%d files open for bash at its prompt, want 3", n)
	}
	c.target.PTY.WriteString("cat\n")
	waitDetail(t, target, AwaitingInput, "(cat)")
	c.target.PTY.WriteString("\x04") // EOF: cat ends
	waitDetail(t, target, AwaitingInput, "(bash)")
	if n := sc.cache.len(); n != 3 {
		t.Errorf("%d files open after cat ended, want bash's 3", n)
	}
	c.insp.Close()
	if n := sc.cache.len(); n != 0 {
		t.Errorf("%d files open after Close, want 0", n)
	}
	waitFor(t, target, AwaitingInput)
	if n := sc.cache.len(); n != 0 {
		t.Errorf("%d files open by probes after Close, want 0", n)
	}
}
