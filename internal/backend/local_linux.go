package backend

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/platform"
	"github.com/agentty/agentty/internal/proctree"
)

// setDeathSignal gives a session root its parent-death signal: none where the
// guard watches agentty's pid instead (platform Guard), as on macOS,
// which has no such signal.
func setDeathSignal(a *syscall.SysProcAttr) {
	if !platform.Current().Guard {
		a.Pdeathsig = syscall.SIGKILL
	}
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
