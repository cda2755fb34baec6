package mcpserver

import (
	"fmt"
	"strings"
	"testing"
)

// pageAll reads a session's whole output from cursor 0 in pages.
func pageAll(c *client, id, stream string) string {
	var b strings.Builder
	cur := int64(0)
	for {
		var r ReadResult
		c.call("read_output", map[string]any{"session_id": id, "cursor": cur, "overflow": "page", "max_bytes": 4 << 20,
			"stream": stream, "timeout_ms": 0}, &r)
		b.WriteString(r.Output)
		if !r.HasMore || r.Cursor == cur {
			return b.String()
		}
		cur = r.Cursor
	}
}

func TestSSH_PipeModeStreams(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	// A million stdout lines; every thousandth is followed by a stderr
	// line, flushed in between so the order on the wire is defined.
	cmd := `seq 1 1000000 | awk '{print; if ($1 % 1000 == 0) {fflush(); print "E" $1 > "/dev/stderr"; fflush("/dev/stderr")}}'`
	var wantOut, wantErr, wantMerged strings.Builder
	for i := 1; i <= 1000000; i++ {
		fmt.Fprintf(&wantOut, "%d\n", i)
		fmt.Fprintf(&wantMerged, "%d\n", i)
		if i%1000 == 0 {
			fmt.Fprintf(&wantErr, "E%d\n", i)
			fmt.Fprintf(&wantMerged, "E%d\n", i)
		}
	}

	t.Run("stdout and stderr kept apart, both complete", func(t *testing.T) {
		r := c.start(map[string]any{"host": host, "command": cmd, "mode": "pipe", "timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1024})
		if r.State != "exited" || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Fatalf("state=%s code=%v", r.State, r.ExitCode)
		}
		if got := pageAll(c.client, r.SessionID, "stdout"); got != wantOut.String() {
			t.Fatalf("stdout: %d bytes, want %d", len(got), wantOut.Len())
		}
		if got := pageAll(c.client, r.SessionID, "stderr"); got != wantErr.String() {
			t.Fatalf("stderr: %d bytes %q..., want %d", len(got), clip(got, 100), wantErr.Len())
		}
		var info InfoResult
		c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
		if info.Lines != 1001000 || info.Bytes != int64(wantMerged.Len()) {
			t.Fatalf("info: %d lines %d bytes", info.Lines, info.Bytes)
		}
	})

	t.Run("merged on the remote in true order, since_line cursor", func(t *testing.T) {
		r := c.start(map[string]any{"host": host, "command": cmd, "mode": "pipe", "merge_stderr": true, "timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1024})
		if r.State != "exited" || *r.ExitCode != 0 {
			t.Fatalf("state=%s", r.State)
		}
		if got := pageAll(c.client, r.SessionID, "both"); got != wantMerged.String() {
			t.Fatalf("merged: %d bytes, want %d", len(got), wantMerged.Len())
		}
		var tail ReadResult
		c.call("read_output", map[string]any{"session_id": r.SessionID, "since_line": 1000997, "timeout_ms": 0}, &tail)
		if tail.Output != "999999\n1000000\nE1000000\n" || tail.Line != 1001000 {
			t.Fatalf("since_line: %q line=%d", tail.Output, tail.Line)
		}
	})
}
