package mcpserver

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

func TestWait_Reasons(t *testing.T) {
	c := newClient(t, session.Config{})
	cases := []struct {
		name       string
		start      map[string]any
		wantReason string
		wantOutput string
		wantMatch  string
	}{
		{"until matches before exit", map[string]any{
			"command": `printf 'booting\n'; printf 'listening on :8080\n'; exec sleep 30`, "mode": "pipe",
			"until": `listening on :(\d+)`, "timeout_ms": 20000},
			"matched", "booting\nlistening on :8080\n", "listening on :8080"},
		{"exit collects last output", map[string]any{
			"command": `seq 1 5; exit 3`, "mode": "pipe", "timeout_ms": 20000},
			"exited", "1\n2\n3\n4\n5\n", ""},
		{"settle after output", map[string]any{
			"command": `echo ready; exec sleep 30`, "mode": "pipe", "settle_ms": 200, "timeout_ms": 20000},
			"settled", "ready\n", ""},
		{"timeout holds while output streams", map[string]any{
			"command": `while :; do echo tick; done`, "mode": "pipe", "timeout_ms": 300, "settle_ms": 0, "max_bytes": 64},
			"timeout", "", ""},
		{"no wait", map[string]any{
			"argv": []string{"sleep", "30"}, "timeout_ms": 0},
			"no_wait", "", ""},
		{"until over ANSI-stripped text", map[string]any{
			"command": `printf '\033[1;32mREADY\033[0m\n'; exec sleep 30`, "until": `^READY$`, "timeout_ms": 20000},
			"matched", "READY\n", "READY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.start(tc.start)
			defer c.call("terminate_process", map[string]any{"session_id": r.SessionID, "force": true}, nil)
			if r.Reason != tc.wantReason {
				t.Fatalf("reason = %s, want %s (output %q, state %s)", r.Reason, tc.wantReason, r.Output, r.State)
			}
			if tc.wantOutput != "" && r.Output != tc.wantOutput {
				t.Fatalf("output = %q, want %q", r.Output, tc.wantOutput)
			}
			if r.Match != tc.wantMatch {
				t.Fatalf("match = %q, want %q", r.Match, tc.wantMatch)
			}
			if tc.wantReason == "timeout" && r.ElapsedMs > 20000 {
				t.Fatalf("timeout took %vms", r.ElapsedMs)
			}
		})
	}
	// Exit codes and signals are reported exactly.
	var r StartResult
	c.call("start_process", map[string]any{"command": "exit 3", "mode": "pipe"}, &r)
	if r.State != "exited" || r.ExitCode == nil || *r.ExitCode != 3 {
		t.Fatalf("exit 3: state=%s code=%v", r.State, r.ExitCode)
	}
	r = StartResult{}
	c.call("start_process", map[string]any{"command": "kill -9 $$"}, &r)
	if r.State != "exited" || r.ExitCode != nil || r.Signal != "SIGKILL" {
		t.Fatalf("kill -9: state=%s code=%v signal=%q", r.State, r.ExitCode, r.Signal)
	}
}

func TestRead_TruncationAndCursors(t *testing.T) {
	c := newClient(t, session.Config{})
	r := c.start(map[string]any{"command": "seq 1 10000", "mode": "pipe", "max_bytes": 1000})
	if r.State != "exited" || !r.Truncated || r.Omitted == nil {
		t.Fatalf("want truncated exited result, got state=%s truncated=%v", r.State, r.Truncated)
	}
	lines := strings.Split(r.Output, "\n")
	if lines[0] != "1" || lines[len(lines)-2] != "10000" {
		t.Fatalf("head/tail wrong: first %q last %q", lines[0], lines[len(lines)-2])
	}
	if !strings.Contains(r.Output, "lines (") || r.Cursor != 48894 {
		t.Fatalf("marker or cursor: cursor=%d", r.Cursor)
	}
	// The omitted range reads back exactly with overflow=page.
	var got strings.Builder
	cur := r.Omitted.From
	for cur < r.Omitted.To {
		var rr ReadResult
		c.call("read_output", map[string]any{"session_id": r.SessionID, "cursor": cur, "overflow": "page", "max_bytes": 4096, "timeout_ms": 0}, &rr)
		got.WriteString(rr.Output)
		cur = rr.Cursor
	}
	full := seqText(1, 10000)
	head := r.Output[:strings.Index(r.Output, "[...")]
	if got.Len() < int(r.Omitted.Bytes) || !strings.HasPrefix(full[len(head):], got.String()[:r.Omitted.Bytes]) {
		t.Fatalf("omitted middle does not read back: got %d bytes, omitted %+v, head %d bytes, cursor %d", got.Len(), *r.Omitted, len(head), r.Cursor)
	}
	if int64(strings.Count(got.String()[:r.Omitted.Bytes], "\n")) != r.Omitted.Lines {
		t.Fatalf("omitted lines %d wrong", r.Omitted.Lines)
	}
	// since_line and max_lines.
	var rr ReadResult
	c.call("read_output", map[string]any{"session_id": r.SessionID, "since_line": 9995, "timeout_ms": 0}, &rr)
	if rr.Output != "9996\n9997\n9998\n9999\n10000\n" || rr.Line != 10000 {
		t.Fatalf("since_line: %q line=%d", rr.Output, rr.Line)
	}
	c.call("read_output", map[string]any{"session_id": r.SessionID, "since_line": 0, "max_lines": 4, "overflow": "page", "timeout_ms": 0}, &rr)
	if rr.Output != "1\n2\n3\n4\n" || !rr.HasMore || rr.Line != 4 {
		t.Fatalf("max_lines page: %q more=%v line=%d", rr.Output, rr.HasMore, rr.Line)
	}
	c.call("read_output", map[string]any{"session_id": r.SessionID, "since_line": 0, "max_lines": 4, "timeout_ms": 0}, &rr)
	if !strings.HasPrefix(rr.Output, "1\n2\n[... 9996 lines (48879 bytes) omitted") || !strings.HasSuffix(rr.Output, "...]\n9999\n10000\n") || rr.Omitted.Lines != 9996 {
		t.Fatalf("max_lines head_tail: %q", rr.Output)
	}
	// tail: only the newest lines, like a log tail.
	c.call("read_output", map[string]any{"session_id": r.SessionID, "since_line": 0, "max_lines": 3, "overflow": "tail", "timeout_ms": 0}, &rr)
	if rr.Output != "[... 9997 lines (48878 bytes) omitted; read_output cursor=0 overflow=page shows them ...]\n9998\n9999\n10000\n" || rr.Cursor != 48894 {
		t.Fatalf("tail by lines: %q cursor=%d", rr.Output, rr.Cursor)
	}
	c.call("read_output", map[string]any{"session_id": r.SessionID, "cursor": 0, "max_bytes": 14, "overflow": "tail", "timeout_ms": 0}, &rr)
	if !strings.HasSuffix(rr.Output, "...]\n9999\n10000\n") || rr.Omitted.To != 48883 {
		t.Fatalf("tail by bytes: %q %+v", rr.Output, rr.Omitted)
	}
}

func TestRead_CleanText(t *testing.T) {
	c := newClient(t, session.Config{})
	r := c.start(map[string]any{"command": `printf 'progress 10%%\rprogress 50%%\rprogress 100%%\n\033[31mred\033[0m \377 done\n'`})
	if r.Output != "progress 100%\nred \uFFFD done\n" {
		t.Fatalf("clean: %q", r.Output)
	}
	var rr ReadResult
	c.call("read_output", map[string]any{"session_id": r.SessionID, "cursor": 0, "strip_ansi": false, "timeout_ms": 0}, &rr)
	if !strings.Contains(rr.Output, "\x1b[31mred") || !strings.Contains(rr.Output, "\r") {
		t.Fatalf("raw: %q", rr.Output)
	}
}

func seqText(a, b int) string {
	var s strings.Builder
	for i := a; i <= b; i++ {
		s.WriteString(itoa(i))
		s.WriteByte('\n')
	}
	return s.String()
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[n:])
		}
	}
}

func TestRead_ReplyStaysUnderMessageLimit(t *testing.T) {
	c := newClient(t, session.Config{})
	// 1.5 MiB of NUL bytes escape to 9 MiB of JSON (18 MiB sent twice);
	// the read shrinks until the reply fits, and paging still delivers every
	// byte exactly once.
	const size = 3 << 19
	r := c.start(map[string]any{"command": "head -c 1572864 /dev/zero", "mode": "pipe", "strip_ansi": false,
		"max_bytes": size, "overflow": "page", "timeout_ms": 30000, "settle_ms": 0})
	total, calls := len(r.Output), 1
	if jsonLen := 6 * len(r.Output); jsonLen > maxEncodedOutput || !r.HasMore {
		t.Fatalf("first page: %d bytes (json %d), has_more=%v", len(r.Output), jsonLen, r.HasMore)
	}
	for r.HasMore || r.Output != "" {
		var rr ReadResult
		c.call("read_output", map[string]any{"session_id": r.SessionID, "strip_ansi": false, "max_bytes": size, "overflow": "page", "timeout_ms": 0}, &rr)
		if strings.Trim(rr.Output, "\x00") != "" {
			t.Fatal("unexpected bytes")
		}
		total += len(rr.Output)
		calls++
		r.HasMore, r.Output = rr.HasMore, rr.Output
	}
	if total != size || calls < 3 {
		t.Fatalf("paged %d bytes in %d calls, want %d in at least 3", total, calls, size)
	}
}
