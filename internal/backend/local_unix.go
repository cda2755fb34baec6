//go:build linux || darwin

package backend

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/inputwait"
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
	// see keeper_linux.go; never on macOS) is set.
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

// untrack ends the tracking of the tree (Close).
func (t *localTree) untrack() {
	if t.tracker != nil {
		t.tracker.Close()
	}
}
