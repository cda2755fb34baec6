package stdin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestPollable_PipeIsPolled: standard input that is a pipe (what an MCP
// client connects) is read through the runtime's poller: it takes
// deadlines, which only polled files do, delivers what the client wrote,
// and a read ends once it is closed. A device or a file stays os.Stdin.
// The test binary runs itself with each kind of stdin.
func TestPollable_PipeIsPolled(t *testing.T) {
	if os.Getenv("AGENTTY_STDIN_CHILD") == "1" {
		stdinChild()
		return
	}
	file := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		stdin func(t *testing.T) *os.File
		want  string
	}{
		{"pipe", func(t *testing.T) *os.File {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteString("hello"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			return r
		}, "polled: read hello; after close: closed"},
		{"device", func(t *testing.T) *os.File { return open(t, os.DevNull) }, "os.Stdin"},
		{"file", func(t *testing.T) *os.File { return open(t, file) }, "os.Stdin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPollable_PipeIsPolled$")
			cmd.Env = append(os.Environ(), "AGENTTY_STDIN_CHILD=1", "GORACE=atexit_sleep_ms=0")
			in := c.stdin(t)
			cmd.Stdin = in
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			in.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v: %s", err, out.String())
			}
			got, _, _ := bytes.Cut(out.Bytes(), []byte("\n"))
			if string(got) != c.want {
				t.Fatalf("child said %q, want %q", got, c.want)
			}
		})
	}
}

func open(t *testing.T, name string) *os.File {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// stdinChild reports on the first line of stdout what Pollable made of
// its standard input.
func stdinChild() {
	p := Pollable()
	if p == os.Stdin {
		fmt.Println("os.Stdin")
		return
	}
	if err := p.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
		fmt.Println("no deadline:", err)
		return
	}
	b := make([]byte, 5)
	if _, err := io.ReadFull(p, b); err != nil {
		fmt.Println("read:", err)
		return
	}
	_ = p.SetReadDeadline(time.Time{})
	p.Close()
	_, err := p.Read(b)
	what := fmt.Sprint(err)
	if errors.Is(err, os.ErrClosed) {
		what = "closed"
	}
	fmt.Printf("polled: read %s; after close: %s\n", b, what)
}
