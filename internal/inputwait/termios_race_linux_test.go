//go:build linux && (amd64 || arm64)

package inputwait

import (
	"syscall"
	"testing"
)

// The terminal's modes that decide "password" are the ones the blocked
// read uses: a program that turns echo off between Inspect's look at the
// terminal and its walk (bash's read -s prints the prompt, turns echo off,
// then reads) must still be seen at a password prompt.
func TestInspect_ModesReadAfterTheBlock(t *testing.T) {
	const script = `import signal, sys, termios
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
sys.stdout.write("ready\n"); sys.stdout.flush()
signal.sigwait({signal.SIGUSR1})
a = termios.tcgetattr(0); a[3] &= ~termios.ECHO; termios.tcsetattr(0, termios.TCSANOW, a)
sys.stdin.readline()
`
	c := startPTY(t, "python3", "-c", script)
	c.out.waitFor(t, "ready")
	testHookAfterPTYQuery = func() {
		testHookAfterPTYQuery = nil
		if err := syscall.Kill(c.target.Root, syscall.SIGUSR1); err != nil {
			t.Errorf("SIGUSR1: %v", err)
			return
		}
		// Between the outer look at the terminal and its walk, the
		// program turns echo off and blocks in its read.
		waitDetail(t, c.target, AwaitingPassword, "read")
	}
	defer func() { testHookAfterPTYQuery = nil }()
	p, err := Inspect(c.target)
	if err != nil {
		t.Fatal(err)
	}
	if p.State != AwaitingPassword {
		t.Fatalf("state %s (%s), want %s: the modes were read before the program blocked", p.State, p.Detail, AwaitingPassword)
	}
}
