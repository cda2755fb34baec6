package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

func TestPythonREPL_RoundTrips(t *testing.T) {
	c := newClient(t, session.Config{})
	r := c.start(map[string]any{"argv": []string{"python3", "-q"}})
	if r.Reason != "awaiting_input" || r.State != "awaiting_input" {
		t.Fatalf("start: reason=%s state=%s output=%q", r.Reason, r.State, r.Output)
	}
	if r.Output != ">>> " {
		t.Fatalf("start output = %q, want the prompt (detail %q, elapsed %vms)", r.Output, r.StateDetail, r.ElapsedMs)
	}
	for i := range 20 {
		var s SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &s)
		want := fmt.Sprintf("%d\n>>> ", i*7)
		if s.Output != want || s.Reason != "awaiting_input" {
			t.Fatalf("round trip %d: output=%q reason=%s, want %q awaiting_input", i, s.Output, s.Reason, want)
		}
	}
	// With echo kept, the typed line comes back first.
	var s SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "1+1", "enter": true, "echo": true}, &s)
	if s.Output != "1+1\n2\n>>> " {
		t.Fatalf("echo kept: %q", s.Output)
	}
	c.call("send_input", map[string]any{"session_id": r.SessionID, "keys": []string{"ctrl+d"}}, &s)
	if s.State != "exited" || s.ExitCode == nil || *s.ExitCode != 0 {
		t.Fatalf("ctrl+d: state=%s code=%v", s.State, s.ExitCode)
	}
}

func TestPrompts_NoNewlineAndPassword(t *testing.T) {
	c := newClient(t, session.Config{})
	script := `read -p 'Continue? [y/N] ' a; echo "answer=$a"; read -s -p 'Password: ' pw; echo; echo "len=${#pw}"`
	r := c.start(map[string]any{"argv": []string{"bash", "--norc", "-c", script}})
	if r.Output != "Continue? [y/N] " || r.State != "awaiting_input" || r.Reason != "awaiting_input" {
		t.Fatalf("prompt: %q state=%s reason=%s", r.Output, r.State, r.Reason)
	}
	var s SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "y", "enter": true}, &s)
	if s.Output != "answer=y\nPassword: " || s.State != "awaiting_password" {
		t.Fatalf("after answer: %q state=%s", s.Output, s.State)
	}
	c.call("send_input", map[string]any{"session_id": r.SessionID, "text": "hunter22", "enter": true}, &s)
	if strings.Contains(s.Output, "hunter22") {
		t.Fatalf("password echoed: %q", s.Output)
	}
	if s.Output != "\nlen=8\n" || s.State != "exited" || *s.ExitCode != 0 {
		t.Fatalf("after password: %q state=%s", s.Output, s.State)
	}
}

func TestPipeMode_StreamsAndEOF(t *testing.T) {
	c := newClient(t, session.Config{})
	// Lines starting with "e" go to stderr; the rest to stdout. Each reply is
	// awaited before the next line is sent, so the interleaving is known.
	prog := `import sys
for line in sys.stdin:
    line = line.strip()
    print(line, file=sys.stderr if line.startswith("e") else sys.stdout, flush=True)
print("bye")`
	r := c.start(map[string]any{"argv": []string{"python3", "-c", prog}, "mode": "pipe"})
	if r.State != "awaiting_input" || r.Output != "" {
		t.Fatalf("pipe start: %q %s", r.Output, r.State)
	}
	for _, line := range []string{"o1", "e1", "o2", "e2"} {
		var s SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": line, "enter": true}, &s)
		if s.Reason != "awaiting_input" || s.Output != line+"\n" {
			t.Fatalf("pipe reply to %s: %q reason=%s", line, s.Output, s.Reason)
		}
	}
	var s SendResult
	c.call("send_input", map[string]any{"session_id": r.SessionID, "stdin_eof": true}, &s)
	if s.Output != "bye\n" || s.State != "exited" {
		t.Fatalf("after eof: %q %s", s.Output, s.State)
	}
	for _, tc := range []struct{ stream, want string }{
		{"stdout", "o1\no2\nbye\n"},
		{"stderr", "e1\ne2\n"},
		{"both", "o1\ne1\no2\ne2\nbye\n"},
	} {
		t.Run(tc.stream, func(t *testing.T) {
			var rr ReadResult
			c.call("read_output", map[string]any{"session_id": r.SessionID, "cursor": 0, "stream": tc.stream, "timeout_ms": 0}, &rr)
			if rr.Output != tc.want {
				t.Fatalf("stream %s: %q", tc.stream, rr.Output)
			}
		})
	}
}

func TestPipeMode_MergedStderrKeepsOrder(t *testing.T) {
	c := newClient(t, session.Config{})
	// python -i writes results to stdout and prompts to stderr in separate
	// writes; one merged pipe keeps their order exact.
	r := c.start(map[string]any{"argv": []string{"python3", "-i", "-q"}, "mode": "pipe", "merge_stderr": true})
	if r.Output != ">>> " || r.State != "awaiting_input" {
		t.Fatalf("start: %q %s", r.Output, r.State)
	}
	for i := range 30 {
		var s SendResult
		c.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &s)
		if want := fmt.Sprintf("%d\n>>> ", i*7); s.Output != want {
			t.Fatalf("round trip %d: %q, want %q", i, s.Output, want)
		}
	}
	if msg := c.toolError("start_process", map[string]any{"argv": []string{"cat"}, "merge_stderr": true}); !strings.Contains(msg, "merge_stderr applies to mode=pipe") {
		t.Fatalf("merge on pty: %s", msg)
	}
}
