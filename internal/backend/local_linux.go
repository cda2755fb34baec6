package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/platform"
	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/proctree"
)

// localTree is what PTY and pipe processes share: a root on this machine
// that leads its own process group, and the marker its tree inherits, so
// proctree can end the whole tree.
type localTree struct {
	pid    int    // the program's
	marker string // Spec.Marker
	box    *box   // nil: no containment configured (see contain_linux.go)
	// Exactly one of proc (the program, our child) and kept (its keeper,
	// see keeper_linux.go) is set.
	proc *os.Process
	kept *kept
	// ports keeps the last scan of listening sockets (see listening_linux.go).
	ports ports.Scanner
	// probe keeps the /proc files of the input-wait probe open between
	// probes; closed once the root has exited (Wait) or at Close.
	probe inputwait.Inspector
	// tracker follows the tree by ancestry where neither a cgroup nor a
	// keeper holds it (platform Tree); nil otherwise, or when the root
	// exited before it could be tracked.
	tracker *proctree.Tracker
}

// deathSignal is a session root's parent-death signal: none where the
// guard watches agentty's pid instead (platform Guard), as on macOS,
// which has no such signal.
func deathSignal() syscall.Signal {
	if platform.Current().Guard {
		return 0
	}
	return syscall.SIGKILL
}

func (t *localTree) PID() int     { return t.pid }
func (t *localTree) Host() string { return "" }

// Signal sends sig to the root's process group, as the terminal driver
// would for a control key.
func (t *localTree) Signal(sig syscall.Signal) error {
	if err := unix.Kill(-t.pid, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("signal %v to process group %d: %w", sig, t.pid, err)
	}
	return nil
}

// Terminate ends the tree: with a cgroup, everything in it (cgroup.kill);
// otherwise through proctree.Terminate, every process group and descendant
// of the root and every process carrying the marker.
func (t *localTree) Terminate(ctx context.Context, grace time.Duration) error {
	if t.box != nil && t.box.group != nil {
		return t.box.terminate(ctx, t.pid, grace)
	}
	if t.tracker != nil {
		_, err := proctree.TerminateTracked(ctx, t.tracker, t.pid, t.marker, grace)
		return err
	}
	if t.kept == nil {
		_, err := proctree.Terminate(ctx, t.pid, t.marker, grace)
		return err
	}
	// The grace first, as for any tree; then the keeper ends what is
	// left, whatever escaped the marker and the process groups.
	var err error
	if grace > 0 && ctx.Err() == nil {
		_, err = proctree.TerminateUnder(ctx, t.kept.keeper, t.pid, t.marker, grace)
	}
	return errors.Join(err, t.kept.end())
}

// setRoot records the started program: cmd's process, or the one k
// started.
func (t *localTree) setRoot(cmd *exec.Cmd, k *kept) {
	t.kept = k
	if k != nil {
		t.pid = k.pid
		return
	}
	t.proc = cmd.Process
	t.pid = cmd.Process.Pid
	if platform.Current().Tree && (t.box == nil || t.box.group == nil) {
		// A root that already exited leaves the tree to the marker and
		// process-group searches.
		t.tracker, _ = proctree.Track(t.pid)
	}
}

// untrack ends the tracking of the tree (Close).
func (t *localTree) untrack() {
	if t.tracker != nil {
		t.tracker.Close()
	}
}

// waitRoot waits for the program's exit, reaping it when it is our child.
func (t *localTree) waitRoot(ru *rootUsage) (Exit, error) {
	if t.kept != nil {
		return t.kept.wait(ru)
	}
	return waitExit(t.proc, ru)
}

// kill ends a tree whose start failed half-way.
func (t *localTree) kill() {
	if t.kept != nil {
		_ = t.kept.end()
		return
	}
	_ = t.proc.Kill()
	_, _ = t.proc.Wait()
}

// OnExit implements Process.
func (t *localTree) OnExit(f func()) error {
	if t.kept != nil {
		t.kept.onExit(f)
		return nil
	}
	return exits.watch(t.pid, f)
}
