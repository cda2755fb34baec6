package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/store"
)

// seqDigest is the size and SHA-256 of `seq 1 n`'s output.
func seqDigest(t *testing.T, n int) (int64, string) {
	t.Helper()
	cmd := exec.Command("seq", "1", strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	size, err := io.Copy(h, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return size, fmt.Sprintf("%x", h.Sum(nil))
}

// storedDigest reads session id's whole transcript from the store in dir.
func storedDigest(t *testing.T, st *store.Store, id string) (size, lost int64, sum string) {
	t.Helper()
	l, err := st.OpenLog(id)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for at := int64(0); ; {
		sl := l.Read(at, -1, 1<<20, outlog.Both)
		h.Write(sl.Data)
		size += int64(len(sl.Data))
		lost += sl.LostBytes
		if sl.Next == at {
			return size, lost, fmt.Sprintf("%x", h.Sum(nil))
		}
		at = sl.Next
	}
}

// TestServe_KillAfterExitedKeepsAll: once a reader has been told a session
// exited, a SIGKILL of the server at that instant loses nothing of it: the
// next server finds the session exited with code 0 and every byte, exact.
// The kill races the store's writer, so it is repeated; the first stream is
// the (124 MB), the others 6.9 MB.
func TestServe_KillAfterExitedKeepsAll(t *testing.T) {
	t.Parallel()
	const rounds = 20
	dir := t.TempDir()
	type stream struct {
		id    string
		count int
		size  int64
		sum   string
	}
	sums := map[int]stream{}
	var streams []stream
	var failed int
	var maxLost int64
	s := startServer(t, "-data-dir", dir)
	for i := 0; i <= rounds; i++ {
		if i > 0 {
			// The server before this one was killed the moment it said
			// "exited": this one must find all of it.
			prev := streams[i-1]
			var info infoResult
			s.call("get_session_info", map[string]any{"session_id": prev.id}, &info)
			if info.State != "exited" || info.ExitCode == nil || *info.ExitCode != 0 || info.Bytes != prev.size {
				code := "none"
				if info.ExitCode != nil {
					code = strconv.Itoa(*info.ExitCode)
				}
				t.Errorf("round %d, after SIGKILL: %s is %s, exit code %s, %d bytes; want exited, 0, %d bytes",
					i, prev.id, info.State, code, info.Bytes, prev.size)
				failed++
				maxLost = max(maxLost, prev.size-info.Bytes)
			}
			var h historyResult
			s.call("get_history", map[string]any{"session_id": prev.id, "lines": 1}, &h)
			if len(h.Lines) != 1 || h.Lines[0].Text != strconv.Itoa(prev.count) {
				t.Errorf("round %d: last line of %s = %+v, want %d", i, prev.id, h.Lines, prev.count)
			}
		}
		if i == rounds {
			break
		}
		count := 1_000_000
		if i == 0 {
			count = 15_000_000
		}
		st, ok := sums[count]
		if !ok {
			st.count = count
			st.size, st.sum = seqDigest(t, count)
			sums[count] = st
		}
		var r readResult
		s.call("start_process", map[string]any{"argv": []string{"seq", "1", strconv.Itoa(count)}, "mode": "pipe",
			"return_on": []string{"exit"}, "timeout_ms": 60000, "max_bytes": 64, "overflow": "tail"}, &r)
		if r.State != "exited" || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Fatalf("round %d: start_process returned %+v, want the exit (code 0)", i, r)
		}
		st.id = r.SessionID
		streams = append(streams, st)
		s.killed = true
		if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		s.close()
		s = startServer(t, "-data-dir", dir)
	}
	s.close()
	t.Logf("%d of %d SIGKILLs lost part of an exited session; most bytes lost by one: %d", failed, rounds, maxLost)
	st, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(); err != nil {
		t.Fatal(err)
	}
	for i, want := range streams {
		size, lost, sum := storedDigest(t, st, want.id)
		if size != want.size || lost != 0 || sum != want.sum {
			t.Errorf("round %d: %s stored %d bytes (lost %d, sha256 %s), want %d bytes of seq 1 %d (%s)",
				i, want.id, size, lost, sum, want.size, want.count, want.sum)
		}
	}
}
