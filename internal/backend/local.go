package backend

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/ports"
	"github.com/agentty/agentty/internal/proctree"
)

// localTree is what PTY and pipe processes share: a root on this machine
// that leads its own process group, and the marker its tree inherits, so
// proctree can end the whole tree.
type localTree struct {
	pid    int    // cmd.Process.Pid, kept: Release clears it
	marker string // Spec.Marker
	box    *box   // nil: no containment configured (see contain.go)
	// ports keeps the last scan of listening sockets (see listening.go).
	ports ports.Scanner
	// probe keeps the /proc files of the input-wait probe open between
	// probes; closed once the root has exited (Wait) or at Close.
	probe inputwait.Inspector
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
	_, err := proctree.Terminate(ctx, t.pid, t.marker, grace)
	return err
}

// OnExit implements Process.
func (t *localTree) OnExit(f func()) error { return exits.watch(t.pid, f) }
