package backend

// These tests start real Windows processes. They are built here (vet
// type-checks them for windows/amd64 and windows/arm64) and run on
// Windows, or under Wine: Wine 8 runs the pipe and Job Object ones, but
// delivers no console control events and does not attach a child to a
// pseudo console, so those skip there (underWine).

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/sigs"
)

const winWait = 30 * time.Second

type winSink struct {
	mu      sync.Mutex
	out     map[outlog.Stream]*bytes.Buffer
	changed chan struct{} // closed and replaced at each chunk
}

// wait returns a channel closed at the next chunk.
func (s *winSink) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

func (s *winSink) sink(st outlog.Stream, p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out == nil {
		s.out = map[outlog.Stream]*bytes.Buffer{}
	}
	if s.out[st] == nil {
		s.out[st] = &bytes.Buffer{}
	}
	s.out[st].Write(p)
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

func (s *winSink) get(st outlog.Stream) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out[st] == nil {
		return ""
	}
	return s.out[st].String()
}

// childSpec runs this test binary as winChild(mode).
func childSpec(t *testing.T, mode string) Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Spec{Path: exe, Argv: []string{exe}, Env: append(os.Environ(), winChildEnv+"="+mode),
		Rows: 24, Cols: 80, Keeper: []string{exe, "__keeper"}}
}

func cmdSpec(t *testing.T, args ...string) Spec {
	t.Helper()
	exe, err := exec.LookPath("cmd.exe")
	if err != nil {
		t.Fatal(err)
	}
	return Spec{Path: exe, Argv: append([]string{exe}, args...), Env: os.Environ(), Rows: 24, Cols: 80}
}

// waitExit waits for p's exit with a deadline, through OnExit first.
func waitExit(t *testing.T, p Process) Exit {
	t.Helper()
	exited := make(chan struct{})
	if err := p.OnExit(func() { close(exited) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(winWait):
		t.Fatal("OnExit was never called")
	}
	ex, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func drained(t *testing.T, p Process) {
	t.Helper()
	select {
	case <-p.Drained():
	case <-time.After(winWait):
		t.Fatal("output never reached its end")
	}
}

func TestStartPipe_Windows(t *testing.T) {
	t.Run("cmd echo", func(t *testing.T) {
		p, s := startPipe(t, cmdSpec(t, "/c", "echo hi"))
		if ex := waitExit(t, p); ex != (Exit{Code: 0}) {
			t.Fatalf("exit = %+v, want code 0", ex)
		}
		drained(t, p)
		if got := s.get(outlog.Stdout); got != "hi\r\n" {
			t.Fatalf("stdout = %q, want %q", got, "hi\r\n")
		}
	})
	t.Run("cmd exit code", func(t *testing.T) {
		p, _ := startPipe(t, cmdSpec(t, "/c", "exit 3"))
		if ex := waitExit(t, p); ex != (Exit{Code: 3}) {
			t.Fatalf("exit = %+v, want code 3", ex)
		}
	})
	t.Run("streams apart", func(t *testing.T) {
		p, s := startPipe(t, childSpec(t, "print"))
		if ex := waitExit(t, p); ex != (Exit{Code: 7}) {
			t.Fatalf("exit = %+v, want code 7", ex)
		}
		drained(t, p)
		if o, e := s.get(outlog.Stdout), s.get(outlog.Stderr); o != "out\n" || e != "err\n" {
			t.Fatalf("stdout %q stderr %q, want %q and %q", o, e, "out\n", "err\n")
		}
	})
	t.Run("streams merged", func(t *testing.T) {
		var s winSink
		spec := childSpec(t, "print")
		spec.MergeStderr = true
		p, err := StartPipe(spec, nil, s.sink)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		waitExit(t, p)
		drained(t, p)
		if o := s.get(outlog.Stdout); o != "out\nerr\n" {
			t.Fatalf("stdout %q, want %q", o, "out\nerr\n")
		}
	})
	t.Run("stdin then its end", func(t *testing.T) {
		p, s := startPipe(t, childSpec(t, "cat"))
		if n, err := p.Write([]byte("abc\n"), time.Now().Add(winWait)); n != 4 || err != nil {
			t.Fatalf("write = %d, %v", n, err)
		}
		if err := p.CloseStdin(); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Write([]byte("x"), time.Now().Add(winWait)); !errors.Is(err, ErrStdinClosed) {
			t.Fatalf("write after CloseStdin = %v, want ErrStdinClosed", err)
		}
		if ex := waitExit(t, p); ex != (Exit{Code: 0}) {
			t.Fatalf("exit = %+v", ex)
		}
		drained(t, p)
		if o := s.get(outlog.Stdout); o != "abc\n" {
			t.Fatalf("stdout %q, want %q", o, "abc\n")
		}
	})
}

func TestTerminate_WindowsJob(t *testing.T) {
	t.Run("the whole tree", func(t *testing.T) {
		p, s := startPipe(t, childSpec(t, "tree"))
		grandchild := readPID(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), winWait)
		defer cancel()
		if err := p.Terminate(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if ex := waitExit(t, p); ex != (Exit{Code: -1, Signal: syscall.SIGKILL}) {
			t.Fatalf("exit = %+v, want ended by SIGKILL", ex)
		}
		if alive(grandchild) {
			t.Fatalf("grandchild %d outlived Terminate", grandchild)
		}
	})
	t.Run("Ctrl+C first", func(t *testing.T) {
		skipUnderWine(t, "console control events")
		p, s := startPipe(t, childSpec(t, "ctrlc"))
		waitOutput(t, s, "ready\n")
		ctx, cancel := context.WithTimeout(context.Background(), winWait)
		defer cancel()
		if err := p.Terminate(ctx, winWait/3); err != nil {
			t.Fatal(err)
		}
		if ex := waitExit(t, p); ex != (Exit{Code: 42}) {
			t.Fatalf("exit = %+v, want 42 (its Ctrl+C handler)", ex)
		}
	})
	t.Run("Close ends the job", func(t *testing.T) {
		var s winSink
		p, err := StartPipe(childSpec(t, "tree"), nil, s.sink)
		if err != nil {
			t.Fatal(err)
		}
		grandchild := readPID(t, &s)
		root := p.PID()
		p.Close()
		p.Close() // twice is fine
		for _, pid := range []int{root, grandchild} {
			h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
			if err != nil {
				continue // gone already
			}
			ev, _ := windows.WaitForSingleObject(h, uint32(winWait/time.Millisecond))
			windows.CloseHandle(h)
			if ev != windows.WAIT_OBJECT_0 {
				t.Fatalf("process %d outlived its job's last handle", pid)
			}
		}
	})
}

func TestSignal_Windows(t *testing.T) {
	skipUnderWine(t, "console control events")
	p, s := startPipe(t, childSpec(t, "ctrlc"))
	waitOutput(t, s, "ready\n")
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, p); ex != (Exit{Code: 42}) {
		t.Fatalf("exit = %+v, want 42", ex)
	}
}

func TestStartPTY_Windows(t *testing.T) {
	skipUnderWine(t, "pseudo consoles")
	var s winSink
	p, err := StartPTY(cmdSpec(t, "/c", "echo hi"), nil, s.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if ex := waitExit(t, p); ex != (Exit{Code: 0}) {
		t.Fatalf("exit = %+v", ex)
	}
	drained(t, p)
	if o := s.get(outlog.Stdout); !strings.Contains(o, "hi") {
		t.Fatalf("console output %q lacks hi", o)
	}
	if _, err := p.Termios(); !errors.Is(err, ErrNoTermios) {
		t.Fatalf("Termios: %v, want ErrNoTermios", err)
	}
}

// readPID waits for the first line of stdout, a pid.
func readPID(t *testing.T, s *winSink) int {
	t.Helper()
	line := waitOutput(t, s, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("first line %q is no pid", line)
	}
	return pid
}

// startPipe starts spec over pipes into a fresh sink, closed when the
// test ends.
func startPipe(t *testing.T, spec Spec) (Process, *winSink) {
	t.Helper()
	s := &winSink{}
	p, err := StartPipe(spec, nil, s.sink)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, s
}

// waitOutput waits until stdout ends with suffix.
func waitOutput(t *testing.T, s *winSink, suffix string) string {
	t.Helper()
	deadline := time.NewTimer(winWait)
	defer deadline.Stop()
	for {
		changed := s.wait()
		if o := s.get(outlog.Stdout); strings.HasSuffix(o, suffix) {
			return o
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("stdout %q never ended with %q", s.get(outlog.Stdout), suffix)
		}
	}
}

func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, 0)
	return ev == uint32(windows.WAIT_TIMEOUT)
}

// underWine: Wine's ntdll exports wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

func skipUnderWine(t *testing.T, what string) {
	t.Helper()
	if underWine() {
		t.Skipf("Wine does not implement %s as Windows does", what)
	}
}

func TestSignal_WindowsRefused(t *testing.T) {
	p, _ := startPipe(t, childSpec(t, "sleep"))
	for _, sig := range []syscall.Signal{sigs.USR1, sigs.TSTP, sigs.CONT} {
		if err := p.Signal(sig); !errors.Is(err, ErrSignalUnsupported) {
			t.Fatalf("%s: %v, want ErrSignalUnsupported", sigs.Name(sig), err)
		}
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, p); ex != (Exit{Code: -1, Signal: syscall.SIGTERM}) {
		t.Fatalf("exit = %+v, want ended by SIGTERM", ex)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("a signal to an ended tree: %v, want none", err)
	}
}

func TestStartPipe_WindowsStdinAndCollect(t *testing.T) {
	t.Run("a reader that closed its stdin", func(t *testing.T) {
		// Wine's conhost.exe, a member of the job, holds the child's
		// standard handles too, so the pipe keeps a reader there.
		skipUnderWine(t, "console hosts")
		p, s := startPipe(t, childSpec(t, "closestdin"))
		waitOutput(t, s, "closed\n")
		_, err := p.Write([]byte("x\n"), time.Now().Add(winWait))
		if !errors.Is(err, ErrNoReader) {
			t.Fatalf("write = %v, want ErrNoReader", err)
		}
	})
	t.Run("Wait has all the root wrote", func(t *testing.T) {
		p, s := startPipe(t, childSpec(t, "flood"))
		if ex := waitExit(t, p); ex != (Exit{Code: 0}) {
			t.Fatalf("exit = %+v", ex)
		}
		if n := len(s.get(outlog.Stdout)); n != 256<<10 {
			t.Fatalf("after Wait %d bytes in the sink, want %d", n, 256<<10)
		}
		select {
		case <-p.Drained():
			t.Fatal("drained while the grandchild holds stdout")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), winWait)
		defer cancel()
		if err := p.Terminate(ctx, 0); err != nil {
			t.Fatal(err)
		}
		drained(t, p)
	})
}
