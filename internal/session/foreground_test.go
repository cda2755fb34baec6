//go:build linux

package session

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/record"
)

// TestForeground_Tree checks what the policy sees of a real process tree in
// both modes: every process once, root first, with its group and whole
// command line (one longer than procReader's first buffer), and the
// leader's name and directory.
func TestForeground_Tree(t *testing.T) {
	long := strings.Repeat("x", 10000)
	for _, mode := range []record.Mode{record.ModePTY, record.ModePipe} {
		t.Run(string(mode), func(t *testing.T) {
			m := NewManager(Config{})
			t.Cleanup(m.Close)
			dir := t.TempDir()
			s, err := m.Start(StartOptions{Mode: mode, Cwd: dir, Argv: []string{"sh", "-c",
				`setsid sleep 60 & python3 -q -c 'import sys; sys.stdin.readline()' ` + long + `; exit 3`}})
			if err != nil {
				t.Fatal(err)
			}
			f := foregroundWaiting(t, s)
			root := s.PID()
			// Without job control every process but the setsid one stays in
			// the root's group, which is also the terminal's foreground group.
			if f.PGID != root || f.PID != root || f.Comm != "sh" || f.Cwd != dir || len(f.Args) != 3 || f.Args[0] != "sh" {
				t.Errorf("leader = pgid %d pid %d comm %q cwd %q %d args; want %d %d sh %s 3 args", f.PGID, f.PID, f.Comm, f.Cwd, len(f.Args), root, root, dir)
			}
			var got []string
			for i, p := range f.Procs {
				wantGroup := root
				if len(p.Args) > 0 && p.Args[0] == "sleep" {
					wantGroup = p.PID
				}
				if (i == 0) != (p.PID == root) || p.PGID != wantGroup || len(p.Args) == 0 {
					t.Errorf("proc %d = %+v; want the root first, group %d, with args", i, p, wantGroup)
					continue
				}
				got = append(got, fmt.Sprintf("%s, last argument %d bytes", filepath.Base(p.Args[0]), len(p.Args[len(p.Args)-1])))
			}
			slices.Sort(got)
			want := []string{fmt.Sprintf("python3, last argument %d bytes", len(long)), fmt.Sprintf("sh, last argument %d bytes", len(f.Args[2])), "sleep, last argument 2 bytes"}
			if !slices.Equal(got, want) {
				t.Errorf("procs = %q, want %q", got, want)
			}
		})
	}
}

// TestForeground_ChildOfAThread: a child started by a thread other than the
// main one is listed in that thread's children file, so a threaded process
// has all its threads' files read (a single-threaded one only its own).
func TestForeground_ChildOfAThread(t *testing.T) {
	m := NewManager(Config{})
	t.Cleanup(m.Close)
	s, err := m.Start(StartOptions{Mode: record.ModePipe, Argv: []string{"python3", "-c", `import subprocess, sys, threading
started = threading.Event()
def run():
    p = subprocess.Popen(["sleep", "60"], start_new_session=True); started.set(); p.wait()
threading.Thread(target=run).start()
started.wait()
sys.stdin.readline()`}})
	if err != nil {
		t.Fatal(err)
	}
	f := foregroundWaiting(t, s)
	if len(f.Procs) != 2 || len(f.Procs[1].Args) != 2 || f.Procs[1].Args[0] != "sleep" {
		t.Fatalf("procs %+v: want python3 and the sleep its thread started", f.Procs)
	}
}

// foregroundWaiting waits until python3 in s waits for input and returns
// the session's foreground then.
func foregroundWaiting(t *testing.T, s *Session) Foreground {
	t.Helper()
	if r := read(t, s, Cursor{}, WaitOptions{Timeout: 20 * time.Second}); r.Wait.Reason != ReasonAwaiting {
		t.Fatalf("python3 did not wait for input: %+v", r.Wait)
	}
	f, err := s.Foreground()
	if err != nil {
		t.Fatal(err)
	}
	return f
}
