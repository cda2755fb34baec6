package mcpserver

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// seqOutput is what `seq 1 n` prints.
func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// readUntilExited reads a session the way an agent trusting the state
// does: from start_process's reply (first), page after page until a reply
// says the program exited and there is nothing more. It returns the text
// read and the log bytes it covered.
func readUntilExited(t *testing.T, c *client, id string, first ReadResult) (string, int64) {
	t.Helper()
	var b strings.Builder
	r := first
	for range 10000 {
		b.WriteString(r.Output)
		if r.Truncated || r.Omitted != nil || r.LostBytes != 0 {
			t.Fatalf("%s: a page was cut: %+v", id, r)
		}
		if r.State == "exited" && r.Output == "" && !r.HasMore {
			return b.String(), r.Cursor
		}
		r = ReadResult{}
		c.call("read_output", map[string]any{"session_id": id, "max_bytes": 4 << 20, "overflow": "page", "timeout_ms": 5000}, &r)
	}
	t.Fatalf("%s: never reported exited with nothing more", id)
	return "", 0
}

// checkExitedMeansComplete starts batches of `seq 1 100000` in mode
// (possibly on host) at once, so their last output is still in flight
// when they exit, and checks that once a session says "exited" with
// nothing more, everything the program wrote was read: byte count and
// sha256 of all 'runs' sessions. On a PTY the terminal adds a CR to each
// line, which the log keeps and read_output's text drops.
func checkExitedMeansComplete(t *testing.T, c *client, host, mode string, runs, batch int) {
	t.Helper()
	want := seqOutput(100000)
	wantSum := sha256.Sum256([]byte(want))
	wantBytes := int64(len(want))
	if mode == "pty" {
		wantBytes += 100000
	}
	var mu sync.Mutex
	clean := 0
	var failures []string
	for done := 0; done < runs; done += batch {
		var wg sync.WaitGroup
		for range min(batch, runs-done) {
			args := map[string]any{"argv": []string{"seq", "1", "100000"}, "mode": mode, "timeout_ms": 0, "max_bytes": 4 << 20, "overflow": "page"}
			if host != "" {
				args["host"] = host
			}
			r := c.start(args)
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, cursor := readUntilExited(t, c, r.SessionID, r.ReadResult)
				var info InfoResult
				c.call("get_session_info", map[string]any{"session_id": r.SessionID}, &info)
				c.call("delete_session", map[string]any{"session_id": r.SessionID}, nil)
				mu.Lock()
				defer mu.Unlock()
				if cursor == wantBytes && info.Bytes == wantBytes && sha256.Sum256([]byte(got)) == wantSum {
					clean++
					return
				}
				failures = append(failures, fmt.Sprintf("%s: exited after %d of %d bytes (%d of %d characters; the log holds %d bytes)", r.SessionID, cursor, wantBytes, len(got), len(want), info.Bytes))
			}()
		}
		wg.Wait()
	}
	if clean != runs {
		t.Errorf("%s: %d of %d runs complete when reported exited; %s", mode, clean, runs, strings.Join(failures, "; "))
	}
}

// Local sessions: TestProcess_WaitAfterAllOutput (backend) pins the
// invariant down exactly; this checks it end to end, under load.
func TestExit_ReportedAfterAllOutput(t *testing.T) {
	c := newClient(t, session.Config{})
	for _, mode := range []string{"pipe", "pty"} {
		t.Run(mode, func(t *testing.T) {
			checkExitedMeansComplete(t, c, "", mode, 20, 8)
		})
	}
}

func TestSSH_ExitReportedAfterAllOutput(t *testing.T) {
	e := newSSHEnv(t)
	c := newSSHClient(t, e.options())
	host := e.srv.Target(e.srv.Addr)
	for _, mode := range []string{"pipe", "pty"} {
		t.Run(mode, func(t *testing.T) {
			checkExitedMeansComplete(t, c.client, host, mode, 50, 8)
		})
	}
}
