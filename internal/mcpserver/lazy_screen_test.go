package mcpserver

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// A PTY session's screen is built when first read, by replaying its output
// from the start: from the transcript store when the memory window dropped
// the start, and with a memory-only log built before the window drops
// anything. Either way the screen is the one an eager emulator drew: the
// title set by the first bytes, the last lines, nothing lost.
func TestReadScreen_LazyReplaysFromTheStart(t *testing.T) {
	for _, withStore := range []bool{true, false} {
		t.Run(fmt.Sprintf("store=%v", withStore), func(t *testing.T) {
			var c *client
			if withStore {
				// A 4 KiB memory window: the replay reads the start from disk.
				c, _ = newStoreClient(t, t.TempDir(), session.Config{OutputLimit: 4096}, nil)
			} else {
				// Past 1 MiB the memory window drops the start; the screen
				// is built (at 256 KiB, from its own copy) before that.
				c = newClient(t, session.Config{OutputLimit: 1 << 20})
			}
			// The output comes in 20 pieces 20 ms apart: the screen's
			// feeder reads the log behind the program, and a memory-only
			// log that drops the start before the feeder got there loses
			// it for the screen too (lost_bytes), which is not what this
			// test is about.
			r := c.start(map[string]any{"command": `printf '\033]2;first title\007FIRST\r\n'; for i in $(seq 0 19); do seq $((i*10000+1)) $((i*10000+10000)); sleep 0.02; done; read x`,
				"mode": "pty", "rows": 5, "cols": 40, "until": "^200000$", "timeout_ms": 30000})
			if r.Reason != "matched" {
				t.Fatalf("start: reason %s, want matched", r.Reason)
			}
			if !withStore {
				var info InfoResult
				c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
				if info.Evicted == 0 {
					t.Fatalf("the memory window kept all %d bytes; the test needs it to drop the start", info.Bytes)
				}
			}
			sc := c.screen(r.SessionID, map[string]any{"timeout_ms": 0, "scrollback": 3})
			want := []string{"199994", "199995", "199996", "199997", "199998", "199999", "200000"}
			if sc.Title != "first title" || sc.LostBytes != 0 || !slices.Equal(sc.Scrollback, want[:3]) || !slices.Equal(sc.Lines, want[3:]) {
				t.Fatalf("screen: title %q lost %d scrollback %q lines %q", sc.Title, sc.LostBytes, sc.Scrollback, sc.Lines)
			}
		})
	}
}
