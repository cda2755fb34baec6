package backend

import (
	"context"
	"os/exec"
	"syscall"
	"time"

	"github.com/agentty/agentty/internal/proctree"
)

// setDeathSignal does nothing: macOS has no parent-death signal. The guard
// watches agentty's pid (kqueue) and ends every session when it dies.
func setDeathSignal(*syscall.SysProcAttr) {}

// Terminate ends the tree through its tracker (proctree.Tracker): its
// members however they left, its descendants and process groups, and every
// process carrying the marker. Without a tracker (the root exited before
// it could be tracked) the last three.
func (t *localTree) Terminate(ctx context.Context, grace time.Duration) error {
	if t.tracker != nil {
		_, err := proctree.TerminateTracked(ctx, t.tracker, t.pid, t.marker, grace)
		return err
	}
	_, err := proctree.Terminate(ctx, t.pid, t.marker, grace)
	return err
}

// setRoot records the started program and starts tracking its tree;
// macOS has no keepers.
func (t *localTree) setRoot(cmd *exec.Cmd, _ *kept) {
	t.proc = cmd.Process
	t.pid = cmd.Process.Pid
	t.tracker, _ = proctree.Track(t.pid)
}

// waitRoot waits for the program's exit and reaps it.
func (t *localTree) waitRoot(ru *rootUsage) (Exit, error) { return waitExit(t.proc, ru) }

// kill ends a tree whose start failed half-way.
func (t *localTree) kill() {
	_ = t.proc.Kill()
	_, _ = t.proc.Wait()
}

// OnExit implements Process (exitwatch_darwin.go).
func (t *localTree) OnExit(f func()) error { return exits.watch(t.pid, f) }
