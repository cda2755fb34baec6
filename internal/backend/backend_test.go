//go:build linux

package backend

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
)

// collector is a Sink that records output per stream.
type collector struct {
	mu  sync.Mutex
	out map[outlog.Stream]*strings.Builder
}

func (c *collector) sink(s outlog.Stream, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out == nil {
		c.out = map[outlog.Stream]*strings.Builder{}
	}
	if c.out[s] == nil {
		c.out[s] = &strings.Builder{}
	}
	c.out[s].Write(p)
}

func (c *collector) get(s outlog.Stream) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out[s] == nil {
		return ""
	}
	return c.out[s].String()
}

func direct(f func()) { f() }

func spec(argv ...string) Spec {
	return Spec{Path: "/bin/sh", Argv: append([]string{"/bin/sh", "-c"}, argv...), Dir: "/", Env: os.Environ(), Rows: 24, Cols: 80}
}

func TestProcess_ExitStatus(t *testing.T) {
	cases := []struct {
		name   string
		script string
		want   Exit
	}{
		{"zero", "exit 0", Exit{Code: 0}},
		{"code", "exit 3", Exit{Code: 3}},
		{"signal", "kill -TERM $$", Exit{Code: -1, Signal: syscall.SIGTERM}},
	}
	for _, tc := range cases {
		for _, start := range []func(Spec, func(func()), Sink) (Process, error){StartPTY, StartPipe} {
			var c collector
			p, err := start(spec(tc.script), direct, c.sink)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Wait()
			if err != nil || got != tc.want {
				t.Fatalf("%s/%s: Wait = %+v, %v; want %+v", tc.name, p.Kind(), got, err, tc.want)
			}
			p.Close()
		}
	}
}

func TestPipe_StreamsMergeAndQuiet(t *testing.T) {
	for _, merge := range []bool{false, true} {
		var c collector
		sp := spec(`echo out; echo err >&2`)
		sp.MergeStderr = merge
		p, err := StartPipe(sp, direct, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.Drained():
		case <-time.After(10 * time.Second):
			t.Fatal("pipes never reached EOF")
		}
		if !p.Quiet() {
			t.Fatal("drained process not quiet")
		}
		out, errs := c.get(outlog.Stdout), c.get(outlog.Stderr)
		if merge && (out != "out\nerr\n" || errs != "") || !merge && (out != "out\n" || errs != "err\n") {
			t.Fatalf("merge=%v: stdout %q stderr %q", merge, out, errs)
		}
		if err := p.Resize(10, 10); err != ErrNotPTY {
			t.Fatalf("pipe resize: %v", err)
		}
		p.Close()
	}
}

func TestPTY_ResizeAndWrite(t *testing.T) {
	var c collector
	p, err := StartPTY(spec(`read line; stty size; echo "got $line"`), direct, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if r, co := p.Size(); r != 24 || co != 80 {
		t.Fatalf("size %dx%d", r, co)
	}
	if err := p.Resize(33, 101); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("hello\r"), time.Now().Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	<-p.Drained()
	if got := c.get(outlog.Stdout); !strings.Contains(got, "33 101\r\ngot hello\r\n") {
		t.Fatalf("pty output %q", got)
	}
	if err := p.CloseStdin(); err != ErrNotPTY {
		t.Fatalf("pty CloseStdin: %v", err)
	}
}

func TestPipe_WriteDeadlineWhenNotRead(t *testing.T) {
	var c collector
	p, err := StartPipe(spec(`exec sleep 30`), direct, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
		_, _ = p.Wait()
		p.Close()
	}()
	big := make([]byte, 1<<20) // more than a pipe buffer
	n, err := p.Write(big, time.Now().Add(200*time.Millisecond))
	if err == nil || n >= len(big) {
		t.Fatalf("write to a program not reading: n=%d err=%v, want a deadline error", n, err)
	}
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("x"), time.Now().Add(time.Second)); err != ErrStdinClosed {
		t.Fatalf("write after close: %v", err)
	}
}
