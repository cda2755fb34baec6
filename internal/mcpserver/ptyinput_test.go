//go:build unix

package mcpserver

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// wcCount ends wc -c's input and returns the count it printed.
func wcCount(t *testing.T, c *client, id string) string {
	t.Helper()
	var s SendResult
	c.call("send_input", map[string]any{"session_id": id, "stdin_eof": true, "until": `^ *\d+ *$`, "timeout_ms": 20000, "settle_ms": 0}, &s)
	if s.Match == "" {
		t.Fatalf("wc printed no count: reason=%s output tail %q", s.Reason, tail(s.Output))
	}
	return strings.TrimSpace(s.Match)
}

func tail(s string) string {
	if len(s) > 200 {
		return s[len(s)-200:]
	}
	return s
}

// lines returns n lines of width x's, each ended by a newline.
func lines(n, width int) string {
	return strings.Repeat(strings.Repeat("x", width)+"\n", n)
}

// TestPTYInput_CanonicalLineLimit: a terminal in canonical mode passes at
// most 4095 bytes of one line to the program and drops the rest; agentty
// refuses such a line whole (nothing written) and delivers everything else
// exactly. wc -c counts what the program received.
func TestPTYInput_CanonicalLineLimit(t *testing.T) {
	c := newClient(t, session.Config{})
	type send struct {
		text    string
		enter   bool
		refused string // substring of the tool error; "" = accepted
	}
	x := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name  string
		sends []send
		count string // what wc -c reports after stdin_eof
	}{
		{"4095 bytes fit", []send{{text: x(4095), enter: true}}, "4096"},
		{"4096 bytes refused", []send{{text: x(4096), enter: true, refused: "makes a line of 4096 bytes"}}, "0"},
		{"5000 bytes refused", []send{{text: x(5000), enter: true, refused: "makes a line of 5000 bytes"}}, "0"},
		{"1 MB line refused", []send{{text: x(1_000_000), enter: true, refused: "makes a line of 1000000 bytes"}}, "0"},
		{"1 MB of short lines delivered", []send{{text: lines(10_000, 99)}}, "1000000"},
		{"a long line among short ones refuses the whole input", []send{{text: "a\n" + x(4100) + "\nb\n", refused: "makes a line of 4100 bytes"}}, "0"},
		{"a line built by two calls", []send{
			{text: x(3000)},
			{text: x(3000), enter: true, refused: "makes a line of 6000 bytes, 3000 of them sent by earlier calls"},
			{enter: true},
		}, "3001"},
		{"ctrl+u erases the pending line", []send{
			{text: x(3000)},
			{text: "\x15" + x(3000), enter: true},
		}, "3001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := c.on(t)
			r := c.start(map[string]any{"argv": []string{"wc", "-c"}})
			if r.State != "awaiting_input" {
				t.Fatalf("start: state=%s detail=%s", r.State, r.StateDetail)
			}
			for i, s := range tc.sends {
				args := map[string]any{"session_id": r.SessionID, "text": s.text, "enter": s.enter, "timeout_ms": 0}
				if s.refused == "" {
					var res SendResult
					c.call("send_input", args, &res)
					want := len(s.text)
					if s.enter {
						want++
					}
					if res.BytesSent != want {
						t.Fatalf("send %d: bytes_sent=%d, want %d", i, res.BytesSent, want)
					}
					continue
				}
				msg := c.toolError("send_input", args)
				for _, want := range []string{s.refused, "line too long for the terminal", "at most 4095 bytes of one line", "Nothing was sent", "write_file", "mode pipe"} {
					if !strings.Contains(msg, want) {
						t.Fatalf("send %d: error %q does not say %q", i, msg, want)
					}
				}
			}
			if got := wcCount(t, c, r.SessionID); got != tc.count {
				t.Fatalf("wc -c counted %s bytes, want %s", got, tc.count)
			}
		})
	}
}

// TestPTYInput_RawModeTakesLongLines: without ICANON the program reads as
// the bytes come, so a line of any length arrives whole.
func TestPTYInput_RawModeTakesLongLines(t *testing.T) {
	c := newClient(t, session.Config{})
	prog := `import os, sys, tty
tty.setraw(0)
n = int(sys.argv[1]); b = b""
while len(b) < n:
    b += os.read(0, n - len(b))
os.write(1, b"got %d x=%d\r\n" % (len(b), b.count(b"x")))`
	const n = 100_000
	r := c.start(map[string]any{"argv": []string{"python3", "-c", prog, strconv.Itoa(n)}})
	if r.State != "awaiting_input" {
		t.Fatalf("start: state=%s detail=%s", r.State, r.StateDetail)
	}
	var s SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": strings.Repeat("x", n), "until": `^got`, "timeout_ms": 20000, "settle_ms": 0}, &s)
	if s.BytesSent != n || !strings.Contains(s.Output, "got 100000 x=100000\n") {
		t.Fatalf("bytes_sent=%d output tail %q", s.BytesSent, tail(s.Output))
	}
}

var wroteRe = regexp.MustCompile(`wrote (\d+) of (\d+) bytes`)

// TestPTYInput_StalledProgram: a program that does not read gets what the
// kernel accepts and no more; the error reports exactly that many bytes,
// which the program later reads up to the byte. A single line it could not
// hold is refused instead of being reported as sent.
func TestPTYInput_StalledProgram(t *testing.T) {
	c := newClient(t, session.Config{MaxInputBytes: 11 << 20})
	t.Run("10 MB line to sleep is refused", func(t *testing.T) {
		c := c.on(t)
		r := c.start(map[string]any{"argv": []string{"sleep", "100"}, "timeout_ms": 0})
		msg := c.toolError("send_input", map[string]any{"session_id": r.SessionID, "text": strings.Repeat("x", 10<<20), "timeout_ms": 0})
		if !strings.Contains(msg, "makes a line of 10485760 bytes") || !strings.Contains(msg, "Nothing was sent") {
			t.Fatalf("error: %q", msg)
		}
	})
	t.Run("10 MB of lines: bytes reported are the bytes read", func(t *testing.T) {
		c := c.on(t)
		// The program ignores its input until SIGUSR1, then reads exactly
		// the byte count the test wrote to a file, then one more line.
		prog := `import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
print("ready", flush=True)
signal.sigwait([signal.SIGUSR1])
n = int(open(sys.argv[1]).read()); got = 0
while got < n:
    got += len(os.read(0, n - got))
nxt = os.read(0, 100)
print("read", got, "next", nxt, flush=True)`
		file := filepath.Join(t.TempDir(), "n")
		r := c.start(map[string]any{"argv": []string{"python3", "-c", prog, file}, "until": "ready", "timeout_ms": 20000, "settle_ms": 0})
		if r.Match != "ready" {
			t.Fatalf("start: %q", r.Output)
		}
		in := lines(10<<20/100, 99)
		msg := c.toolError("send_input", map[string]any{"session_id": r.SessionID, "text": in, "timeout_ms": 0})
		m := wroteRe.FindStringSubmatch(msg)
		if m == nil || !strings.Contains(msg, "not reading its input") {
			t.Fatalf("error: %q", msg)
		}
		wrote, _ := strconv.Atoi(m[1])
		if m[2] != strconv.Itoa(len(in)) || wrote <= 0 || wrote > 1<<20 {
			t.Fatalf("wrote %s of %s (input %d)", m[1], m[2], len(in))
		}
		if err := os.WriteFile(file, []byte(m[1]), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(r.PID, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		// A line the stall cut short is finished by END's line end; the
		// program has read its start already, so END comes next. The
		// pattern waits for the closing quote: the kernel may pass the
		// program's one write on in two pieces while the echo of 10 MB
		// fills the terminal's output.
		var s SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "END", "enter": true, "until": `^read \d+ next b'[^']*'`, "timeout_ms": 20000, "settle_ms": 0}, &s)
		want := "read " + m[1] + " next b'END\\n'"
		if !strings.Contains(s.Output, want) {
			t.Fatalf("reason=%s state=%s detail=%s; program output tail %q, want %q", s.Reason, s.State, s.StateDetail, tail(s.Output), want)
		}
	})
}
