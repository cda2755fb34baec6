package nodebackend

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/inputwait"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/ttymode"
)

// collector is a sink that lets a test wait for output.
type collector struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
}

func newCollector() *collector { return &collector{more: make(chan struct{}, 1)} }

func (c *collector) sink(_ outlog.Stream, p []byte) {
	c.mu.Lock()
	c.buf.Write(p)
	c.mu.Unlock()
	select {
	case c.more <- struct{}{}:
	default:
	}
}

func (c *collector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// waitFor waits until the output contains s.
func (c *collector) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(c.String(), s) {
		select {
		case <-c.more:
		case <-deadline:
			t.Fatalf("no %q in output %q", s, c.String())
		}
	}
}

func localPool(t *testing.T) *Pool {
	p := NewPool(&Options{Version: "test", Dial: localDial})
	t.Cleanup(p.Close)
	return p
}

// waitInput probes until the program waits for input.
func waitInput(t *testing.T, p backend.Process) inputwait.Probe {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		pr, err := p.Inspect()
		if err != nil {
			t.Fatal(err)
		}
		if pr.State == inputwait.AwaitingInput {
			return pr
		}
		if time.Now().After(deadline) {
			t.Fatalf("never awaiting input: %+v", pr)
		}
		time.Sleep(time.Millisecond) // polling the kernel's verdict, as the engine does
	}
}

func TestNode_PTYRoundTrips(t *testing.T) {
	pool := localPool(t)
	out := newCollector()
	p, err := pool.Start(backend.RemoteSpec{Host: "docker://local", SessionID: "s1", Marker: "t/s1",
		Argv: []string{"python3", "-q", "-i"}, PTY: true, Rows: 24, Cols: 80}, out.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Host() != "docker://local" || p.Kind() != "pty" || p.PID() <= 0 {
		t.Fatalf("host %q kind %q pid %d", p.Host(), p.Kind(), p.PID())
	}
	waitInput(t, p)
	for i := range 5 {
		if _, err := p.Write(fmt.Appendf(nil, "print(%d*7)\r", i), time.Now().Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		out.waitFor(t, fmt.Sprintf("\r\n%d\r\n", i*7))
	}
	tio, err := p.Termios()
	if err != nil || !tio.Signals || tio.Chars[ttymode.VINTR] != 3 { // a terminal, ^C interrupts
		t.Fatalf("termios %+v %v", tio, err)
	}
	if err := p.Resize(30, 100); err != nil {
		t.Fatal(err)
	}
	if r, c := p.Size(); r != 30 || c != 100 {
		t.Fatalf("size %dx%d", r, c)
	}
	if err := p.Terminate(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	ex, err := p.Wait()
	if err != nil || ex.Lost != "" || ex.Signal == 0 {
		t.Fatalf("exit %+v %v", ex, err)
	}
	if got := pool.Hosts(); len(got) != 1 || got[0].State != "connected" || !strings.Contains(got[0].Node, "agentty test") {
		t.Fatalf("hosts %+v", got)
	}
}

func TestNode_PipeThroughputAndExit(t *testing.T) {
	pool := localPool(t)
	out := newCollector()
	p, err := pool.Start(backend.RemoteSpec{Host: "docker://local", SessionID: "s2", Marker: "t/s2",
		Argv: []string{"sh", "-c", "seq 1 200000; echo err >&2; exit 3"}, MergeStderr: true}, out.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ex, err := p.Wait()
	if err != nil || ex.Code != 3 {
		t.Fatalf("exit %+v %v", ex, err)
	}
	<-p.Drained()
	var want bytes.Buffer
	for i := 1; i <= 200000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	want.WriteString("err\n")
	if got := out.String(); sha256.Sum256([]byte(got)) != sha256.Sum256(want.Bytes()) {
		t.Fatalf("output of %d bytes differs from the %d expected (tail %q)", len(got), want.Len(), got[max(0, len(got)-40):])
	}
}

func TestNode_Errors(t *testing.T) {
	pool := localPool(t)
	_, err := pool.Start(backend.RemoteSpec{Host: "docker://local", Argv: []string{"no-such-program-xyz"}}, func(outlog.Stream, []byte) {})
	if err == nil || !strings.Contains(err.Error(), "no-such-program-xyz: not found on PATH") {
		t.Fatalf("err %v", err)
	}
	for _, h := range []string{"docker://", "docker://a/b", "k8s://ns", "k8s://ns/pod/c/x"} {
		if _, err := pool.Start(backend.RemoteSpec{Host: h, Argv: []string{"true"}}, nil); err == nil || !strings.Contains(err.Error(), "bad container host") {
			t.Errorf("%s: err %v", h, err)
		}
	}
	out, err := pool.Exec(context.Background(), "docker://local", false, `cat; echo "$1"; exit 0`, []string{"arg"}, []byte("in\n"))
	if err != nil || string(out) != "in\narg\n" {
		t.Fatalf("exec %q %v", out, err)
	}
	if _, err := pool.Exec(context.Background(), "docker://local", false, `echo bad >&2; exit 4`, nil, nil); err == nil || !strings.Contains(err.Error(), "exit status 4: bad") {
		t.Fatalf("exec err %v", err)
	}
}

// The first output can be read before the node has queued the start reply;
// it must reach the sink all the same. Looped: the race is in the start.
func TestNode_OutputBeforeStartReply(t *testing.T) {
	pool := localPool(t)
	for i := range 50 {
		out := newCollector()
		p, err := pool.Start(backend.RemoteSpec{Host: "docker://local", Argv: []string{"seq", "1", "300000"}}, out.sink)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		<-p.Drained()
		p.Close()
		if n := len(out.String()); n != 1988895 {
			t.Fatalf("run %d: %d bytes, want 1988895", i, n)
		}
	}
}

// TestNode_ExecNotReaped loops short execs: the node is a subreaper whose
// reaper collects zombie children nobody owns, so an exec's child that
// exits before its Wait must be owned, or Wait fails with ECHILD ("waitid:
// no child processes", about 1 exec in 30 before it was).
func TestNode_ExecNotReaped(t *testing.T) {
	pool := localPool(t)
	for i := range 200 {
		out, err := pool.Exec(context.Background(), "docker://local", false, `echo "$1"; exit 0`, []string{strconv.Itoa(i)}, nil)
		if err != nil || string(out) != strconv.Itoa(i)+"\n" {
			t.Fatalf("exec %d: %q %v", i, out, err)
		}
	}
}
