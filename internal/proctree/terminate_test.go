//go:build linux

package proctree

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func TestTerminate(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		comms    []string
		grace    time.Duration
		ctxLimit time.Duration // 0: no cancellation
		wantSig  syscall.Signal
		minTime  time.Duration
	}{
		{
			name:    "tree with setsid child honours SIGTERM",
			script:  "sleep 1000 & setsid sleep 1000 & wait",
			comms:   []string{"sh", "sleep", "sleep"},
			grace:   2 * time.Second,
			wantSig: syscall.SIGTERM,
		},
		{
			name:    "ignored SIGTERM and SIGHUP get SIGKILL after grace",
			script:  `trap "" TERM HUP; sleep 1000`,
			comms:   []string{"sh", "sleep"},
			grace:   200 * time.Millisecond,
			wantSig: syscall.SIGKILL,
			minTime: 200 * time.Millisecond,
		},
		{
			name:    "zero grace sends SIGKILL only",
			script:  `trap "exit 7" TERM; sleep 1000 & wait`,
			comms:   []string{"sh", "sleep"},
			wantSig: syscall.SIGKILL,
		},
		{
			name:     "cancelled context cuts grace short",
			script:   `trap "" TERM HUP; sleep 1000`,
			comms:    []string{"sh", "sleep"},
			grace:    time.Hour,
			ctxLimit: 200 * time.Millisecond,
			wantSig:  syscall.SIGKILL,
			minTime:  200 * time.Millisecond,
		},
		{
			// As an interactive shell at its prompt: the hang-up its
			// terminal would send ends it without waiting for the grace.
			name:    "root ignoring SIGTERM is hung up",
			script:  `trap "" TERM; exec sleep 1000`, // the ignore survives exec
			comms:   []string{"sleep"},
			grace:   30 * time.Second,
			wantSig: syscall.SIGHUP,
		},
		{
			name:    "reparented double-forked daemon",
			script:  "(setsid sleep 1000 &) ; sleep 1000",
			comms:   []string{"sh", "sleep", "sleep"},
			grace:   2 * time.Second,
			wantSig: syscall.SIGTERM,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startMarked(t, tt.script)
			procs := waitTree(t, c.pid(), c.entry, tt.comms...)
			start := time.Now() // before the context's deadline is fixed
			ctx := context.Background()
			if tt.ctxLimit > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxLimit)
				defer cancel()
			}
			n, err := Terminate(ctx, c.pid(), c.entry, tt.grace)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(procs) {
				t.Errorf("signalled %d, want %d", n, len(procs))
			}
			if took < tt.minTime || took > 5*time.Second {
				t.Errorf("took %v, want between %v and 5s", took, tt.minTime)
			}
			// Terminate returns only once every process has exited.
			for _, p := range procs {
				if alive(p) {
					t.Errorf("%+v still alive", p)
				}
			}
			if left := liveMarked(t, c.entry); len(left) != 0 {
				t.Errorf("marked processes left: %v", left)
			}
			if sig := termSignal(c.wait()); sig != tt.wantSig {
				t.Errorf("root ended by %v (%s), want %v", sig, c.state, tt.wantSig)
			}
			// A dead tree is a no-op.
			if n, err := Terminate(context.Background(), c.pid(), c.entry, tt.grace); n != 0 || err != nil {
				t.Errorf("second Terminate = %d, %v, want 0, nil", n, err)
			}
		})
	}
}

// Terminate must not wait for grace when the tree is already dead, even if
// the root is an unreaped zombie.
func TestTerminateZombieRoot(t *testing.T) {
	c := startMarked(t, "exit 3")
	waitFor(t, "root to become a zombie", func() bool {
		st, err := readStat(c.pid())
		return err == nil && st.dead()
	})
	n, err := Terminate(context.Background(), c.pid(), c.entry, time.Hour)
	if n != 0 || err != nil {
		t.Fatalf("Terminate = %d, %v, want 0, nil", n, err)
	}
	if st := c.wait(); st.ExitCode() != 3 {
		t.Fatalf("root state %s, want exit 3", st)
	}
}

// A stopped process (Ctrl+Z in a shell) holds SIGTERM pending until it
// runs again; Terminate continues it, as a shell's kill does, instead of
// waiting for the grace period's SIGKILL.
func TestTerminate_StoppedProcess(t *testing.T) {
	tests := []struct {
		name      string
		script    string
		comms     []string
		stopsRoot bool // the root stops, else its child
	}{
		{"stopped root", `kill -STOP $$; sleep 1000`, []string{"sh"}, true},
		// In a session of its own: a stopped group that loses its parent
		// in the same session is continued by the kernel anyway.
		{"stopped child", `setsid sh -c 'kill -STOP $$; exec sleep 1000' & wait`, []string{"sh", "sh"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startMarked(t, tt.script)
			procs := waitTree(t, c.pid(), c.entry, tt.comms...)
			for _, p := range procs {
				if (p.PID == c.pid()) == tt.stopsRoot {
					waitFor(t, "the process to stop", func() bool {
						st, err := readStat(p.PID)
						return err == nil && st.State == 'T'
					})
				}
			}
			start := time.Now()
			if _, err := Terminate(context.Background(), c.pid(), c.entry, 30*time.Second); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v: waited for the grace period instead of continuing the stopped process", took)
			}
			for _, p := range procs {
				if alive(p) {
					t.Errorf("%+v still alive", p)
				}
			}
			if sig := termSignal(c.wait()); sig != syscall.SIGTERM {
				t.Errorf("root ended by %v (%s), want SIGTERM", sig, c.state)
			}
		})
	}
}
