package sshbackend

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/sigs"
	"github.com/agentty/agentty/internal/ttymode"
)

var _ backend.Process = (*process)(nil)

// InputWaits implements backend.Process: the probe cannot see input still
// on its way through the channel, so waits after input are gated for a
// grace of a few round trips; Quiet is itself a round trip (see Quiet).
// Containment is empty: a remote tree is held by the remote side.
func (p *process) Containment() contain.Report { return contain.Report{} }

func (p *process) InputWaits() backend.InputWaits {
	return backend.InputWaits{Gated: true, Grace: p.inputGrace()}
}

// Termios implements backend.Process: the remote terminal's modes are not
// visible through the channel.
func (p *process) Termios() (ttymode.Modes, error) {
	if !p.pty {
		return ttymode.Modes{}, backend.ErrNotPTY
	}
	return ttymode.Modes{}, backend.ErrNoTermios
}

// inputGrace is a few round trips of the connection (measured on the
// helper), at least the local 50 ms.
func (p *process) inputGrace() time.Duration {
	g := 50 * time.Millisecond
	p.conn.hmu.Lock()
	h := p.conn.helper
	p.conn.hmu.Unlock()
	if h != nil {
		g = max(g, 4*time.Duration(h.rtt.Load()))
	}
	return min(g, 5*time.Second)
}

// Host implements backend.Process.
func (p *process) Host() string { return p.conn.target.Key() }

// Signal implements backend.Process: the signal goes to the process group,
// as a terminal would send it. Without the helper (non-Linux remotes) it
// falls back to an SSH signal request, which OpenSSH delivers to the root
// process only.
func (p *process) Signal(sig syscall.Signal) error {
	name := strings.TrimPrefix(sigs.Name(sig), "SIG")
	if name == "" {
		return fmt.Errorf("unknown signal %d", sig)
	}
	h, err := p.conn.helperFor()
	if err != nil {
		if err := p.sess.Signal(ssh.Signal(name)); err != nil {
			return fmt.Errorf("signal %s on %s: %w", name, p.Host(), err)
		}
		return nil
	}
	ans, err := h.request("S %s %d", name, p.pid)
	if err != nil {
		return err
	}
	if ans != "ok" && !strings.HasPrefix(ans, "err no process group") {
		return fmt.Errorf("signal %s on %s: %s", name, p.Host(), ans)
	}
	return nil
}

// Terminate implements backend.Process. It signals every process of the
// program's session (sshd made the program a session leader) and every
// process carrying its marker (escaped with setsid), then checks on the
// remote host that none is left, SIGKILLing survivors after grace.
func (p *process) Terminate(ctx context.Context, grace time.Duration) error {
	if !p.conn.alive() {
		return nil // lost: nothing can be reached
	}
	h, err := p.conn.helperFor()
	if err != nil {
		// No /proc helper: the best the protocol offers.
		_ = p.sess.Signal(ssh.SIGTERM)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.drained:
		case <-t.C:
			_ = p.sess.Signal(ssh.SIGKILL)
		case <-ctx.Done():
		}
		p.sess.Close()
		return nil
	}
	sig := "TERM"
	if grace <= 0 {
		sig = "KILL"
	}
	if _, err := h.request("K %s %d %s", sig, p.pid, p.marker); err != nil {
		return fmt.Errorf("terminate on %s: %w", p.Host(), err)
	}
	killAt := time.Now().Add(grace)
	delay := 2 * time.Millisecond
	killed := grace <= 0
	for {
		ans, err := h.request("C %d %s", p.pid, p.marker)
		if err != nil {
			return fmt.Errorf("terminate on %s: %w", p.Host(), err)
		}
		if ans == "ok 0" {
			return nil
		}
		if !killed && !time.Now().Before(killAt) {
			if _, err := h.request("K KILL %d %s", p.pid, p.marker); err != nil {
				return fmt.Errorf("terminate on %s: %w", p.Host(), err)
			}
			killed = true
		}
		// The remote tree is asked again while it dies; the checks get
		// rarer so a slow shutdown costs few round trips.
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, 100*time.Millisecond)
	}
}
