//go:build linux

package termtext

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyDeadline is generous so a loaded CI machine does not flake.
const ptyDeadline = 10 * time.Second

// ptyProc is a process on a real PTY whose output is read by one goroutine
// owned by the test; cleanup kills the process and waits for that goroutine.
type ptyProc struct {
	master *os.File
	chunks chan []byte
}

func startPTY(t *testing.T, name string, args ...string) *ptyProc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "PYTHONSTARTUP=")
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &ptyProc{master: master, chunks: make(chan []byte, 64)}
	go func() {
		defer close(p.chunks)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				p.chunks <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				return // EIO once the child side is gone, or closed master
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = master.Close()
		for range p.chunks {
		}
	})
	return p
}

// readAll collects raw output until the child exits.
func (p *ptyProc) readAll(t *testing.T) []byte {
	t.Helper()
	var all []byte
	timeout := time.After(ptyDeadline)
	for {
		select {
		case c, ok := <-p.chunks:
			if !ok {
				return all
			}
			all = append(all, c...)
		case <-timeout:
			t.Fatalf("no EOF within %v; got %q", ptyDeadline, all)
		}
	}
}

// streamUntil cleans chunks as they arrive, the way agentty's reader does,
// until the accumulated text contains want.
func (p *ptyProc) streamUntil(t *testing.T, text *strings.Builder, pending *[]byte, want string) {
	t.Helper()
	timeout := time.After(ptyDeadline)
	for !strings.Contains(text.String(), want) {
		select {
		case c, ok := <-p.chunks:
			if !ok {
				t.Fatalf("EOF before %q; got %q", want, text.String())
			}
			*pending = append(*pending, c...)
			s, n := Clean(*pending, false)
			checkOutput(t, *pending, s, n, false)
			text.WriteString(s)
			*pending = (*pending)[n:]
		case <-timeout:
			t.Fatalf("no %q within %v; got %q", want, ptyDeadline, text.String())
		}
	}
}

func TestPTYPythonREPL(t *testing.T) {
	p := startPTY(t, "python3", "-q", "-i")
	var text strings.Builder
	var pending []byte
	p.streamUntil(t, &text, &pending, ">>> ")
	if got := text.String(); got != ">>> " {
		t.Fatalf("before input got %q, want %q", got, ">>> ")
	}
	if _, err := p.master.Write([]byte("print(6*7)\r")); err != nil {
		t.Fatalf("write: %v", err)
	}
	want := ">>> print(6*7)\n42\n>>> "
	p.streamUntil(t, &text, &pending, want)
	if got := text.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestPTYProgressBar(t *testing.T) {
	p := startPTY(t, "python3", "-c",
		`import sys
for i in range(5):
    sys.stdout.write("\r[%-4s] %d%%" % ("#" * i, i * 25)); sys.stdout.flush()
print()`)
	raw := p.readAll(t)
	if got, _ := Clean(raw, true); got != "[####] 100%\n" {
		t.Fatalf("Clean(%q) = %q, want %q", raw, got, "[####] 100%\n")
	}
}

func TestPTYColoredLs(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPTY(t, "ls", "--color=always", "-1", dir)
	raw := p.readAll(t)
	if !strings.Contains(string(raw), "\x1b[") {
		t.Fatalf("ls produced no colour escapes: %q", raw)
	}
	want := "notes.txt\nrun.sh\nsub\n"
	if got, _ := Clean(raw, true); got != want {
		t.Fatalf("Clean(%q) = %q, want %q", raw, got, want)
	}
}
