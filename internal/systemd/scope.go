// Package systemd asks the user's systemd manager over D-Bus for a
// transient scope with Delegate=yes holding agentty, so that a non-root
// agentty whose own cgroup is not delegated still gets a cgroup subtree
// for its sessions (a cgroup.Delegator). It speaks D-Bus through
// github.com/coreos/go-systemd/v22/dbus and github.com/godbus/dbus/v5.
package systemd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sd "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
)

// starter is the part of a go-systemd connection Scope uses; tests fake it.
type starter interface {
	StartTransientUnitContext(ctx context.Context, name, mode string, props []sd.Property, ch chan<- string) (int, error)
	Close()
}

// Scope makes one transient scope (cgroup.Delegator).
type Scope struct {
	unit string
	// dial connects to the user's manager and names the address used.
	dial func(ctx context.Context) (starter, string, error)
}

// NewScope returns a Scope that will name its unit unit (e.g.
// "agentty-1a2b3c4d.scope") and ask the manager of this user found from
// the environment (see dialUser).
func NewScope(unit string) *Scope {
	return &Scope{unit: unit, dial: func(ctx context.Context) (starter, string, error) { return dialUser(ctx, env{}) }}
}

// Delegate asks the manager to start the scope with pids in it and
// Delegate=yes, and waits for the job: once it returns nil the processes
// are in the scope's cgroup, which belongs to this user.
func (s *Scope) Delegate(ctx context.Context, pids []int) (string, error) {
	c, addr, err := s.dial(ctx)
	if err != nil {
		return "", fmt.Errorf("asked systemd for a delegated scope over D-Bus: %w", err)
	}
	defer c.Close()
	ps := make([]uint32, len(pids))
	for i, p := range pids {
		ps[i] = uint32(p)
	}
	props := []sd.Property{
		sd.PropDescription("agentty: terminals for AI agents"),
		sd.PropPids(ps...),
		{Name: "Delegate", Value: dbus.MakeVariant(true)},
		// A failed scope is not left behind for `systemctl reset-failed`.
		{Name: "CollectMode", Value: dbus.MakeVariant("inactive-or-failed")},
	}
	done := make(chan string, 1)
	if _, err := c.StartTransientUnitContext(ctx, s.unit, "fail", props, done); err != nil {
		return "", fmt.Errorf("asked systemd (%s) for the delegated scope %s: %w", addr, s.unit, err)
	}
	select {
	case r := <-done:
		if r != "done" {
			return "", fmt.Errorf("asked systemd (%s) for the delegated scope %s: its start job ended %q", addr, s.unit, r)
		}
	case <-ctx.Done():
		return "", fmt.Errorf("asked systemd (%s) for the delegated scope %s: no answer: %w", addr, s.unit, ctx.Err())
	}
	return "systemd scope " + s.unit, nil
}

// env reads the environment (tests substitute it).
type env struct{ get func(string) string }

// ErrNoBus: neither the manager's private socket nor a session bus is
// known to this process.
var ErrNoBus = errors.New("no systemd user manager found: $XDG_RUNTIME_DIR/systemd/private is missing and no session bus is known ($DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)")

// joinErrs words the attempts that failed, one per address.
func joinErrs(errs []string) error {
	if len(errs) == 0 {
		return ErrNoBus
	}
	return errors.New(strings.Join(errs, "; "))
}
