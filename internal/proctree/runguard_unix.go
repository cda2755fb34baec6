//go:build linux || darwin

package proctree

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/cgroup"
	"github.com/agentty/agentty/internal/exemap"
	"github.com/agentty/agentty/internal/platform"
)

const (
	// sweepRounds and sweepBudget bound the guard's sweep: each round kills
	// everything marked, waits for it, and looks again for processes that
	// were forked meanwhile.
	sweepRounds = 20
	sweepBudget = 5 * time.Second
	// sweepRoundWait caps the wait within one round so a process stuck in
	// uninterruptible sleep does not starve later rounds.
	sweepRoundWait = time.Second
)

// RunGuard is the body of the hidden guard subcommand and returns the
// process exit code. It reads the instance from GuardInstanceEnv, ignores
// SIGINT and SIGHUP (a terminal's Ctrl+C or hangup aimed at agentty must not
// kill the guard first), reports readiness on stdout, then waits for stdin
// EOF or SIGTERM (its parent-death signal) and sweeps: every process whose
// environment has EnvKey with the value prefix "<instance>/", plus their
// descendants, is SIGKILLed, repeatedly, until none is left.
func RunGuard() int {
	instance := os.Getenv(GuardInstanceEnv)
	if instance == "" {
		fmt.Fprintln(os.Stderr, errNoInstance)
		return 2
	}
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	// Taken while the parent is alive: afterwards its pid and group are
	// exactly what must never be hit even though they are no longer ours.
	prot := protectSelf()

	if _, err := os.Stdout.Write([]byte{guardReady}); err != nil {
		fmt.Fprintf(os.Stderr, "proctree: guard: report ready: %v\n", err)
	}
	var once sync.Once
	var mu sync.Mutex
	var fed feedReader // guarded by mu
	code := 0
	finish := func() int {
		once.Do(func() {
			mu.Lock()
			tracked := fed.members
			fed.members = nil // later lines must not race the sweep's read
			mu.Unlock()
			code = sweepInstance(instance, prot, tracked)
		})
		return code
	}
	go func() {
		// Exits the process, which is how this goroutine stops.
		<-term
		os.Exit(finish())
	}()
	if platform.Current().Guard {
		watchParent(finish)
	}
	// The guard now waits for hours on one read. The binary's pages its
	// start mapped (13 of its 15 MiB RSS) need not stay in its address
	// space, and what comes back is only what runs after the trim: each
	// page touched maps a whole page-cache folio again (see exemap). So
	// the waiting is set up before the trim, and after it comes a plain
	// read into a buffer made before (io.Copy's interface checks and
	// buffer pool touched 4 MiB of the binary's type data).
	buf := make([]byte, 64)
	_, _ = exemap.Trim()
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			mu.Lock()
			fed.take(buf[:n])
			mu.Unlock()
		}
		if err != nil {
			return finish()
		}
	}
}

// sweepInstance kills everything of the instance and what the trackers fed
// it (tracked: pid → start time), and returns the guard's exit code: 1
// when some survived.
func sweepInstance(instance string, prot protected, tracked map[int]uint64) int {
	// The sessions' cgroups first: cgroup.kill also ends processes that
	// cleared their marker, and the groups are removed.
	if err := cgroup.Sweep(cgroup.ParentName(instance), sweepBudget); err != nil {
		fmt.Fprintf(os.Stderr, "proctree: guard: cgroups: %v\n", err)
	}
	if left := sweep(EnvKey+"="+instance+"/", prot, tracked); left > 0 {
		fmt.Fprintf(os.Stderr, "proctree: guard: %d marked processes survived\n", left)
		return 1
	}
	return 0
}

// sweep SIGKILLs every process marked with prefix or tracked, and their
// descendants, until none is left or the bounds run out, and returns how
// many remain.
func sweep(prefix string, prot protected, tracked map[int]uint64) int {
	match := func(env []byte) bool { return envHasPrefix(env, prefix) }
	find := func() ([]Proc, error) { return collect(liveTracked(tracked), match, prot) }
	k := newKiller(prot)
	defer k.close()
	deadline := time.Now().Add(sweepBudget)
	for range sweepRounds {
		procs, err := find()
		if err != nil {
			fmt.Fprintf(os.Stderr, "proctree: guard: %v\n", err)
		}
		if len(procs) == 0 && !k.pending() {
			return 0
		}
		if !time.Now().Before(deadline) {
			break
		}
		k.signal(procs, nil, unix.SIGKILL)
		if k.pending() {
			k.wait(context.Background(), min(sweepRoundWait, time.Until(deadline)))
		} else {
			pause(min(retryPause, time.Until(deadline)))
		}
	}
	procs, _ := find()
	return len(procs)
}
