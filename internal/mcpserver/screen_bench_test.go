//go:build unix

package mcpserver

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

// BenchmarkPTYIngestScreen measures PTY ingest with and without the
// terminal emulator: from start_process until the session exited and, with
// the emulator, read_screen shows the last line (everything rendered).
// Wall-clock MB/s depends on what else the CPUs do; server-cpu-ms/op (this
// process's user+system time, which holds the server but not the program)
// is the emulator's cost whatever the load.
func BenchmarkPTYIngestScreen(b *testing.B) {
	const size = 64 << 20
	for _, tc := range []struct {
		name     string
		noScreen bool
	}{{"emulator=off", true}, {"emulator=on", false}} {
		b.Run(tc.name, func(b *testing.B) {
			c := newClient(b, session.Config{NoScreen: tc.noScreen})
			b.SetBytes(size)
			cpu0 := cpuTime(b)
			for b.Loop() {
				var st StartResult
				c.call("start_process", map[string]any{"command": fmt.Sprintf("yes 'the quick brown fox jumps over the lazy dog 0123456789' | head -c %d; echo; echo END", size),
					"timeout_ms": 0, "rows": 24, "cols": 80}, &st)
				for {
					var r ReadResult
					c.call("read_output", map[string]any{"session_id": st.SessionID, "timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1, "overflow": "page"}, &r)
					if r.State == "exited" {
						break
					}
				}
				var info InfoResult
				c.call("get_session_info", map[string]any{"session_id": st.SessionID}, &info)
				if info.Bytes < size {
					b.Fatalf("session counted %d bytes, want >= %d", info.Bytes, size)
				}
				if !tc.noScreen {
					r := c.screen(st.SessionID, map[string]any{"timeout_ms": 0})
					if r.PendingBytes != 0 || len(r.Lines) == 0 || r.Lines[len(r.Lines)-1] != "END" {
						b.Fatalf("screen not rendered to the end: pending %d, last rows %q", r.PendingBytes, r.Lines[max(0, len(r.Lines)-2):])
					}
				}
				c.call("delete_session", map[string]any{"session_id": st.SessionID}, nil)
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Milliseconds())/float64(b.N), "server-cpu-ms/op")
		})
	}
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReadScreen measures one read_screen round trip (no wait) on a
// full 80x24 and 200x60 screen, through the MCP client, without and with
// attrs. Every row has three styled runs (a bold coloured number, a
// reverse word, a 256-colour background) on the default base.
func BenchmarkReadScreen(b *testing.B) {
	for _, sz := range []struct{ rows, cols int }{{24, 80}, {60, 200}} {
		for _, attrs := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%d/attrs=%v", sz.cols, sz.rows, attrs), func(b *testing.B) {
				c := newClient(b, session.Config{})
				row := strings.Repeat("x", sz.cols-20)
				var st StartResult
				c.call("start_process", map[string]any{"command": fmt.Sprintf(`for i in $(seq %d); do printf '\e[1;31m%%3d\e[0m \e[7mrev\e[0m %s \e[48;5;236mbg\e[0m\n' $i; done; exec cat`, sz.rows*2, row),
					"rows": sz.rows, "cols": sz.cols, "timeout_ms": 20000}, &st)
				defer c.stop(st.SessionID)
				for b.Loop() {
					r := c.screen(st.SessionID, map[string]any{"timeout_ms": 0, "attrs": attrs})
					if len(r.Lines) != sz.rows-1 {
						b.Fatalf("%d lines, want %d", len(r.Lines), sz.rows-1)
					}
					if attrs && (len(r.Attrs) != sz.rows-1 || len(r.Attrs[0].Runs) != 3) {
						b.Fatalf("attrs %+v, want 3 runs on each of %d rows", r.Attrs, sz.rows-1)
					}
				}
			})
		}
	}
}
