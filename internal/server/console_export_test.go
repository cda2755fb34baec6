//go:build unix

package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/agentty/agentty/internal/console/client"
)

// castFile is a parsed asciicast v2 recording.
type castFile struct {
	header map[string]any
	times  []float64
	codes  []string
	data   []string
}

func parseCast(t *testing.T, b []byte) castFile {
	t.Helper()
	var c castFile
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			if err := json.Unmarshal(sc.Bytes(), &c.header); err != nil {
				t.Fatalf("header: %v: %s", err, sc.Bytes())
			}
			continue
		}
		var ev [3]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, sc.Bytes())
		}
		tm, ok1 := ev[0].(float64)
		code, ok2 := ev[1].(string)
		data, ok3 := ev[2].(string)
		if !ok1 || !ok2 || !ok3 {
			t.Fatalf("event %d is not [time, code, data]: %s", i, sc.Bytes())
		}
		c.times, c.codes, c.data = append(c.times, tm), append(c.codes, code), append(c.data, data)
	}
	return c
}

func (c castFile) joined(code string) string {
	var b strings.Builder
	for i := range c.codes {
		if c.codes[i] == code {
			b.WriteString(c.data[i])
		}
	}
	return b.String()
}

func TestConsole_Export(t *testing.T) {
	c := startConsole(t, 0)
	id := c.python(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	send := func(text, until string) {
		call(t, c.agent, "send_input", map[string]any{"session_id": id, "text": text, "enter": true, "until": until}, nil)
	}
	send("print(6*7)", ">>> ")
	call(t, c.agent, "resize_pty", map[string]any{"session_id": id, "rows": 30, "cols": 100}, nil)
	send("import getpass; p = getpass.getpass('pw: ')", "pw: ")
	// The password goes in once getpass reads it (echo off).
	call(t, c.agent, "read_output", map[string]any{"session_id": id, "return_on": []string{"input"}, "timeout_ms": 30000}, nil)
	send("hunter2", ">>> ")
	send("print('héllo ' * 3, len(p))", ">>> ")
	send("exit()", "")
	call(t, c.agent, "read_output", map[string]any{"session_id": id, "return_on": []string{"exit"}, "timeout_ms": 30000}, nil)

	cl := c.client(t)
	var raw, text, castBuf bytes.Buffer
	if err := cl.Log(ctx, id, client.LogOptions{Raw: true}, &raw); err != nil {
		t.Fatal(err)
	}
	if err := cl.Log(ctx, id, client.LogOptions{}, &text); err != nil {
		t.Fatal(err)
	}
	if err := cl.Export(ctx, id, "cast", &castBuf); err != nil {
		t.Fatal(err)
	}
	cf := parseCast(t, castBuf.Bytes())
	if cf.header["version"] != 2.0 || cf.header["width"] != 120.0 || cf.header["height"] != 40.0 || cf.header["command"] != "python3 -q" {
		t.Errorf("header = %v", cf.header)
	}
	for i := 1; i < len(cf.times); i++ {
		if cf.times[i] < cf.times[i-1] {
			t.Errorf("event %d at %v is before event %d at %v", i, cf.times[i], i-1, cf.times[i-1])
		}
	}
	if got := cf.joined("o"); got != raw.String() {
		t.Errorf("output events = %q\nwant the transcript %q", got, raw.String())
	}
	if !strings.Contains(raw.String(), "héllo héllo héllo  7") {
		t.Errorf("transcript misses the output: %q", raw.String())
	}
	if got := cf.joined("r"); got != "100x30" {
		t.Errorf("resize events = %q, want 100x30", got)
	}
	if in := cf.joined("i"); !strings.Contains(in, "print(6*7)") || strings.Contains(in, "hunter2") || strings.Contains(castBuf.String(), "hunter2") {
		t.Errorf("input events = %q: want the typed lines without the password", in)
	}

	t.Run("text", func(t *testing.T) {
		var b bytes.Buffer
		if err := cl.Export(ctx, id, "text", &b); err != nil {
			t.Fatal(err)
		}
		if b.String() != text.String() {
			t.Errorf("text export = %q, want the log %q", b.String(), text.String())
		}
	})
	t.Run("asciinema cat", func(t *testing.T) {
		if _, err := exec.LookPath("asciinema"); err != nil {
			t.Skip("asciinema is not installed (scripts/test installs it)")
		}
		f := filepath.Join(t.TempDir(), "s.cast")
		if err := os.WriteFile(f, castBuf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		out := asciinemaCat(t, ctx, f)
		if out != raw.String() {
			t.Errorf("asciinema cat = %q\nwant %q", out, raw.String())
		}
	})
	t.Run("unknown format and session", func(t *testing.T) {
		if err := cl.Export(ctx, id, "gif", &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "format is cast or text") {
			t.Errorf("format gif: %v", err)
		}
		if err := cl.Export(ctx, "nope", "cast", &bytes.Buffer{}); !client.NotFound(err) {
			t.Errorf("unknown session: %v", err)
		}
	})
}

// asciinemaCat runs `asciinema cat file` on a raw terminal of its own (it
// opens /dev/tty) and returns what it printed.
func asciinemaCat(t *testing.T, ctx context.Context, file string) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "asciinema", "cat", file)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "LANG=C.UTF-8")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var out bytes.Buffer
	_, _ = io.Copy(&out, ptmx) // ends with EIO once asciinema exits
	// The server under test reaps every child it does not own (it is a
	// subreaper), so Wait may find asciinema's status already collected.
	if err := cmd.Wait(); err != nil && !errors.Is(err, syscall.ECHILD) {
		t.Fatalf("asciinema cat: %v: %s", err, out.String())
	}
	return out.String()
}
