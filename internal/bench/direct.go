package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/creack/pty"
)

// directPTYRoundTrips does the same exchange on a PTY without agentty: write
// the line, read until the next prompt. It is the floor agentty's latency
// is compared against: python's own work plus the kernel's PTY.
func directPTYRoundTrips(n int, limit time.Duration) ([]time.Duration, int, error) {
	cmd := exec.Command("python3", "-q")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return nil, 0, err
	}
	stop := watchdog(cmd, limit) // python's end ends a blocked read with EIO
	defer func() {
		stop()
		f.Close()
	}()
	// The echo ends the first line, so the value is on its own line.
	return exchange(f, f, n, "direct pty", func(out []byte, v string) bool {
		return bytes.Contains(out, []byte("\n"+v+"\r\n"))
	})
}

// directPipeRoundTrips does the pipe mode's exchange without agentty:
// python -i with its stdout and stderr on one pipe, as merge_stderr gives
// them, so the reply is exactly the value and the prompt.
func directPipeRoundTrips(n int, limit time.Duration) ([]time.Duration, int, error) {
	cmd := exec.Command("python3", "-i", "-q")
	r, w, err := os.Pipe()
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	cmd.Stdout, cmd.Stderr = w, w
	in, err := cmd.StdinPipe()
	if err != nil {
		w.Close()
		return nil, 0, err
	}
	err = cmd.Start()
	w.Close() // python holds the write end; its exit ends a blocked read
	if err != nil {
		return nil, 0, err
	}
	defer watchdog(cmd, limit)()
	return exchange(in, r, n, "direct pipes", func(out []byte, v string) bool {
		return string(out) == v+"\n>>> "
	})
}

// watchdog kills cmd once limit has passed, so a reply that never comes
// cannot hang the bench: its end ends a blocked read. The returned stop
// kills and reaps it in any case.
func watchdog(cmd *exec.Cmd, limit time.Duration) (stop func()) {
	t := time.AfterFunc(limit, func() { _ = cmd.Process.Kill() })
	return func() {
		t.Stop()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

// exchange reads python's first prompt from r, then times n round trips
// (timeRounds): write "print(i*7)" to w, read until the next prompt. ok
// judges what was read against the value expected.
func exchange(w io.Writer, r io.Reader, n int, what string, ok func(out []byte, v string) bool) ([]time.Duration, int, error) {
	buf, chunk := make([]byte, 0, 4096), make([]byte, 4096)
	prompt := []byte(">>> ")
	readPrompt := func() error {
		for !bytes.HasSuffix(buf, prompt) {
			k, err := r.Read(chunk)
			buf = append(buf, chunk[:k]...)
			if err != nil {
				return fmt.Errorf("read after %q: %w", buf, err)
			}
		}
		return nil
	}
	if err := readPrompt(); err != nil {
		return nil, 0, err
	}
	bad := 0
	ds, err := timeRounds(n, func(i int) error {
		buf = buf[:0]
		if _, err := io.WriteString(w, fmt.Sprintf("print(%d*7)\n", i)); err != nil {
			return err
		}
		if err := readPrompt(); err != nil {
			return err
		}
		if v := strconv.Itoa(i * 7); !ok(buf, v) {
			if bad == 0 {
				fmt.Fprintf(os.Stderr, "bench: %s reply %d: got %q, want %s\n", what, i, buf, v)
			}
			bad++
		}
		return nil
	})
	return ds, bad, err
}
