//go:build linux

package main

import (
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/agentty/agentty/internal/store"
)

// TestDaemon_KillAfterExitedKeepsAll is TestServe_KillAfterExitedKeepsAll
// for the daemon: once a client through serve has been told a session
// exited, a SIGKILL of the daemon (and of that serve) at that instant
// loses nothing of it: the next daemon finds it exited with code 0 and
// every byte, exact. The kill races the store's writer, so it is repeated.
func TestDaemon_KillAfterExitedKeepsAll(t *testing.T) {
	t.Parallel()
	const (
		rounds = 5
		count  = 1_000_000 // 6.9 MB
	)
	size, sum := seqDigest(t, count)
	h := newDaemonHome(t)
	var ids []string
	s := h.serve(t, nil)
	for i := 0; i <= rounds; i++ {
		if i > 0 {
			prev := ids[i-1]
			var info infoResult
			s.call("get_session_info", map[string]any{"session_id": prev}, &info)
			if info.State != "exited" || info.ExitCode == nil || *info.ExitCode != 0 || info.Bytes != size {
				code := "none"
				if info.ExitCode != nil {
					code = strconv.Itoa(*info.ExitCode)
				}
				t.Errorf("round %d, after SIGKILL of the daemon: %s is %s, exit code %s, %d bytes; want exited, 0, %d bytes",
					i, prev, info.State, code, info.Bytes, size)
			}
			var hist historyResult
			s.call("get_history", map[string]any{"session_id": prev, "lines": 1}, &hist)
			if len(hist.Lines) != 1 || hist.Lines[0].Text != strconv.Itoa(count) {
				t.Errorf("round %d: last line of %s = %+v, want %d", i, prev, hist.Lines, count)
			}
		}
		if i == rounds {
			break
		}
		daemonPID := h.status(t).PID
		var r readResult
		s.call("start_process", map[string]any{"argv": []string{"seq", "1", strconv.Itoa(count)}, "mode": "pipe",
			"return_on": []string{"exit"}, "timeout_ms": 60000, "max_bytes": 64, "overflow": "tail"}, &r)
		if r.State != "exited" || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Fatalf("round %d: start_process returned %+v, want the exit (code 0)", i, r)
		}
		ids = append(ids, r.SessionID)
		if err := syscall.Kill(daemonPID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killServe(t, s)
		waitGone(t, daemonPID)
		s = h.serve(t, nil)
	}
	s.close()
	for _, pid := range h.daemons() {
		_ = killPID(pid)
		waitGone(t, pid)
	}
	st, err := store.Open(filepath.Join(h.state, "agentty"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		gotSize, lost, gotSum := storedDigest(t, st, id)
		if gotSize != size || lost != 0 || gotSum != sum {
			t.Errorf("round %d: %s stored %d bytes (lost %d, sha256 %s), want %d bytes of seq 1 %d (%s)",
				i, id, gotSize, lost, gotSum, size, count, sum)
		}
	}
}
