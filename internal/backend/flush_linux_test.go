package backend

import (
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/outlog"
)

// TestPTY_FlushInput: once FlushInput returns, a line written to the
// master with nothing else queued is in the terminal's input queue (TIOCINQ
// on the slave counts it), round after round, without the kernel worker's
// delay showing.
func TestPTY_FlushInput(t *testing.T) {
	var (
		c     collector
		once  sync.Once
		ready = make(chan struct{})
	)
	sink := func(s outlog.Stream, b []byte) {
		c.sink(s, b)
		if strings.Contains(c.get(outlog.Stdout), "ready") {
			once.Do(func() { close(ready) })
		}
	}
	// The program takes no input until told: what is typed stays queued.
	p, err := StartPTY(spec(`stty -echo; echo ready; sleep 60; cat`), direct, sink)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatalf("no ready line: %q", c.get(outlog.Stdout))
	}
	pp := p.(*ptyProcess)
	slave, err := peer(pp)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(slave)
	const rounds = 200
	for i := 1; i <= rounds; i++ {
		if _, err := p.Write([]byte("x\n"), time.Now().Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := pp.FlushInput(); err != nil {
			t.Fatal(err)
		}
		if n, err := unix.IoctlGetInt(slave, unix.TIOCINQ); err != nil || n != 2 {
			t.Fatalf("round %d: %d bytes queued (%v), want 2", i, n, err)
		}
		// Take the line, so the next round starts with nothing queued:
		// poll only hands input over while none is available (a reader
		// has something to take otherwise, and is awake).
		buf := make([]byte, 16)
		if n, err := unix.Read(slave, buf); err != nil || string(buf[:n]) != "x\n" {
			t.Fatalf("round %d: read %q, %v", i, buf[:max(n, 0)], err)
		}
	}
}

// peer opens the slave of p's terminal for the test's own look at it.
func peer(p *ptyProcess) (int, error) {
	var fd int
	var err error
	cerr := p.rc.Control(func(m uintptr) {
		r, _, e := unix.Syscall(unix.SYS_IOCTL, m, unix.TIOCGPTPEER, uintptr(unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC))
		fd = int(r)
		if e != 0 {
			err = e
		}
	})
	if cerr != nil {
		return -1, cerr
	}
	return fd, err
}
