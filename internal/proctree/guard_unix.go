//go:build linux || darwin

package proctree

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/platform"
)

// guardReadyTimeout bounds how long StartGuard waits for the guard to arm its
// signal handling; a Go binary starting on a loaded machine can be slow.
const guardReadyTimeout = 10 * time.Second

// guardCloseTimeout bounds Guard.Close: the guard's own sweep is bounded by
// sweepBudget, so anything longer means it is stuck and gets killed.
const guardCloseTimeout = sweepBudget + 10*time.Second

// guardReady is the byte the guard writes once SIGTERM is handled.
const guardReady = 'R'

// Guard is a watchdog process: a re-exec of agentty's binary in a hidden mode.
// When agentty exits for any reason — the guard's stdin pipe hits EOF or its
// parent-death signal arrives — it SIGKILLs every process marked with
// agentty's instance. Only an external SIGKILL of the guard itself defeats it.
type Guard struct {
	cmd       *exec.Cmd
	stdin     *os.File // write end; closing it tells the guard to sweep
	done      chan struct{}
	waitErr   error
	closeOnce sync.Once
	closeErr  error
}

// StartGuard starts the guard: exe with args (the caller passes
// os.Executable() and the hidden subcommand words that lead to RunGuard),
// with GuardInstanceEnv=instance, Pdeathsig SIGTERM, its own process group
// (so signals aimed at agentty's group do not reach it) and a pipe on its
// stdin. The start runs on sp's thread so Pdeathsig tracks agentty's
// lifetime. It returns once the guard has confirmed it is armed.
//
// A nil sp starts the guard from the calling thread, whose exit would fire
// the guard's sweep early; only tests should do that. The hidden subcommand
// must call RunGuard before writing anything to stdout, which carries the
// readiness byte. The guard is a child of agentty: with RunReaper, owned must
// cover PID().
func StartGuard(sp *Spawner, exe string, args []string, instance string) (*Guard, error) {
	return BeginGuard(sp, exe, args, instance).Wait()
}

// BeginGuard is StartGuard without the wait: it returns at once, and the
// PendingGuard's Wait returns what StartGuard would. With sp, the whole
// start, the wait for readiness included, is one job on sp's thread, so
// every process sp starts afterwards starts once the guard is armed (or has
// failed to start): no child ever runs unguarded, and the caller need not
// wait before it serves.
func BeginGuard(sp *Spawner, exe string, args []string, instance string) *PendingGuard {
	p := &PendingGuard{finished: make(chan struct{})}
	start := func() {
		defer close(p.finished)
		p.g, p.err = startGuard(exe, args, instance)
	}
	if sp == nil {
		done := make(chan any, 1)
		done <- run(start)
		p.done = done
		return p
	}
	p.done = sp.Begin(start)
	return p
}

// DeferGuard is BeginGuard with the start put off (Spawner.Defer) until sp
// is about to start its first process or is kicked: a server that has
// started nothing yet needs no guard, and the guard's own start (a second
// Go process) would compete with the server's. Wait returns nil, nil if sp
// closed before the guard was needed.
func DeferGuard(sp *Spawner, exe string, args []string, instance string) *PendingGuard {
	p := &PendingGuard{finished: make(chan struct{})}
	p.done = sp.Defer(func() {
		defer close(p.finished)
		p.g, p.err = startGuard(exe, args, instance)
	})
	return p
}

// PendingGuard is a guard being started by BeginGuard.
type PendingGuard struct {
	finished chan struct{} // closed when the start has ended
	done     <-chan any    // the start's panic value, or nil
	g        *Guard        // set before finished closes
	err      error
	once     sync.Once
	panicked any // set inside once
}

// Armed reports, without waiting, whether the start has ended (the guard
// is armed or failed to start).
func (p *PendingGuard) Armed() bool {
	select {
	case <-p.finished:
		return true
	default:
		return false
	}
}

// Wait waits for the start to end and returns the guard or why it did not
// start.
func (p *PendingGuard) Wait() (*Guard, error) {
	p.once.Do(func() { p.panicked = <-p.done })
	if p.panicked != nil {
		panic(p.panicked)
	}
	return p.g, p.err
}

// startGuard starts the guard from the calling thread and waits until it
// is armed.
func startGuard(exe string, args []string, instance string) (*Guard, error) {
	if instance == "" || strings.ContainsAny(instance, "/=\x00") {
		return nil, fmt.Errorf("%w: %q", ErrBadInstance, instance)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("proctree: guard stdin pipe: %w", err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("proctree: guard ready pipe: %w", err)
	}
	defer readyR.Close()

	cmd := exec.Command(exe, args...)
	cmd.Env = append(withoutEnv(os.Environ(), GuardInstanceEnv), GuardInstanceEnv+"="+instance)
	cmd.Stdin = inR
	cmd.Stdout = readyW // never agentty's stdout: that may be the MCP channel
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = guardAttr()
	if platform.Current().Guard {
		// The guard watches this pid itself (watchParent).
		cmd.Env = append(withoutEnv(cmd.Env, guardParentEnv), guardParentEnv+"="+strconv.Itoa(os.Getpid()))
	}
	err = cmd.Start()
	inR.Close()
	readyW.Close()
	if err != nil {
		inW.Close()
		return nil, fmt.Errorf("proctree: start guard: %w", err)
	}
	g := &Guard{cmd: cmd, stdin: inW, done: make(chan struct{})}
	go func() {
		g.waitErr = cmd.Wait()
		close(g.done)
	}()

	var b [1]byte
	_ = readyR.SetReadDeadline(time.Now().Add(guardReadyTimeout))
	if n, err := readyR.Read(b[:]); n != 1 || b[0] != guardReady {
		g.kill()
		return nil, fmt.Errorf("%w: %v", ErrGuardNotReady, err)
	}
	if platform.Current().Tree {
		var now []Proc
		for _, t := range scans.open() {
			now = append(now, t.Members()...)
		}
		setFeed(g.stdin, now)
	}
	return g, nil
}

// guardParentEnv tells a guard started without a parent-death signal
// (platform Guard) which pid to watch: by the time it looks, its parent
// may already have died and left it to init.
const guardParentEnv = "AGENTTY_GUARD_PARENT"

// unfeed stops the tracker feed to g.
func (g *Guard) unfeed() {
	feed.mu.Lock()
	defer feed.mu.Unlock()
	if feed.sink == feedSink(g.stdin) {
		feed.sink = nil
	}
}

// PID returns the guard's process id.
func (g *Guard) PID() int { return g.cmd.Process.Pid }

// Done is closed when the guard process has exited.
func (g *Guard) Done() <-chan struct{} { return g.done }

// Close tells the guard to sweep and exit now (closes its stdin) and waits
// for it. It returns the guard's exit error, e.g. when survivors remained.
func (g *Guard) Close() error {
	g.closeOnce.Do(func() {
		g.unfeed()
		g.stdin.Close()
		t := time.NewTimer(guardCloseTimeout)
		defer t.Stop()
		select {
		case <-g.done:
		case <-t.C:
			g.kill()
		}
		if g.waitErr != nil {
			g.closeErr = fmt.Errorf("proctree: guard: %w", g.waitErr)
		}
	})
	return g.closeErr
}

// kill ends a guard that failed to start properly or is stuck.
func (g *Guard) kill() {
	g.unfeed()
	g.stdin.Close()
	_ = g.cmd.Process.Kill()
	<-g.done
}

func withoutEnv(env []string, key string) []string {
	out := make([]string, 0, len(env))
	for _, e := range env {
		if !strings.HasPrefix(e, key+"=") {
			out = append(out, e)
		}
	}
	return out
}

// errNoInstance is reported by RunGuard when started without an instance.
var errNoInstance = errors.New("proctree: guard started without " + GuardInstanceEnv)

// setFeed makes sink (nil: none) hear every change from now on, after the
// members tracked so far.
func setFeed(sink feedSink, now []Proc) {
	feed.mu.Lock()
	defer feed.mu.Unlock()
	feed.sink = sink
	if sink != nil {
		writeFeed(sink, now, nil)
	}
}
