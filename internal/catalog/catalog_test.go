package catalog

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/history"
	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
	"github.com/agentty/agentty/internal/store"
	"github.com/agentty/agentty/internal/store/storetest"
)

// open is one server's engine over the transcript store in dir: the
// manager closes first, so every exit is committed before the store
// closes.
func open(t *testing.T, dir string) (*session.Manager, *store.Store) {
	t.Helper()
	st, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mgr := session.NewManager(session.Config{NewLog: st.NewLog, Recorder: st.Recorder(), NextID: st.NextID})
	t.Cleanup(func() {
		mgr.Close()
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return mgr, st
}

// run starts o and waits for the program to end.
func run(t *testing.T, mgr *session.Manager, o session.StartOptions) *session.Session {
	t.Helper()
	s, err := mgr.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not exit", o.Command)
	}
	return s
}

func ids(infos []record.Info) []string {
	out := []string{}
	for _, in := range infos {
		out = append(out, in.ID)
	}
	return out
}

// A session of an earlier run (only the store has it) and the live ones
// of this run read alike: listed oldest first without duplicates,
// described, read, searched and deleted by id, live ones also by name.
func TestCatalog_LiveAndRecorded(t *testing.T) {
	dir := t.TempDir()
	firstMgr, firstStore := open(t, dir)
	past := run(t, firstMgr, session.StartOptions{Command: "echo 'from the first run'; exit 3", Mode: record.ModePipe})
	firstMgr.Close()
	if err := firstStore.Close(); err != nil {
		t.Fatal(err)
	}
	restart := time.Now()

	mgr, st := open(t, dir)
	c := New(mgr, st)
	done := run(t, mgr, session.StartOptions{Command: "echo now", Mode: record.ModePipe, Name: "done"})
	live, err := mgr.Start(session.StartOptions{Argv: []string{"cat"}, Name: "cat"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Recording() {
		t.Fatal("Recording() = false with a store")
	}

	t.Run("list", func(t *testing.T) {
		for _, tc := range []struct {
			name       string
			since      time.Time
			withExited bool
			want       []string
		}{
			{"all", time.Time{}, true, []string{past.ID, done.ID, live.ID}},
			{"since the restart", restart, true, []string{done.ID, live.ID}},
			{"running only", time.Time{}, false, []string{live.ID}},
		} {
			got, err := c.List(tc.since, tc.withExited)
			if err != nil || !slices.Equal(ids(got), tc.want) {
				t.Errorf("%s: %v %v, want %v", tc.name, ids(got), err, tc.want)
			}
		}
	})

	t.Run("info", func(t *testing.T) {
		in, err := c.Info(past.ID)
		if err != nil || in.ID != past.ID || in.State != "exited" || in.ExitCode == nil || *in.ExitCode != 3 ||
			in.Command != "echo 'from the first run'; exit 3" || in.Bytes != int64(len("from the first run\n")) {
			t.Errorf("recorded: %+v %v", in, err)
		}
		if in, err := c.Info("cat"); err != nil || in.ID != live.ID || in.State == "exited" || in.ExitCode != nil {
			t.Errorf("live by name: %+v %v", in, err)
		}
		if _, err := c.Info("nope"); !errors.Is(err, session.ErrSessionNotFound) {
			t.Errorf("unknown: %v", err)
		}
	})

	t.Run("resolve", func(t *testing.T) {
		for in, want := range map[string]string{"cat": live.ID, live.ID: live.ID, past.ID: past.ID, "nope": "nope"} {
			if got := c.Resolve(in); got != want {
				t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
			}
		}
	})

	t.Run("output", func(t *testing.T) {
		for _, tc := range []struct{ ref, id, line string }{
			{past.ID, past.ID, "from the first run"},
			{"done", done.ID, "now"},
		} {
			l, id, err := c.OutputLog(tc.ref)
			if err != nil || id != tc.id {
				t.Fatalf("%s: %s %v", tc.ref, id, err)
			}
			if h := history.Get(l, history.Query{}); len(h.Lines) != 1 || h.Lines[0].Text != tc.line {
				t.Errorf("%s: lines %+v, want %q", tc.ref, h.Lines, tc.line)
			}
		}
		if _, _, err := c.OutputLog("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown: %v, want store.ErrNotFound", err)
		}
	})

	t.Run("search", func(t *testing.T) {
		res, err := c.Search(regexp.MustCompile("first|now"), store.SearchOptions{MaxResults: 10, MaxScanBytes: 1 << 20, MaxLineBytes: 100})
		if err != nil || len(res.Matches) != 2 || res.Matches[0].SessionID != done.ID || res.Matches[1].SessionID != past.ID || !res.Complete {
			t.Errorf("all: %+v %v; want done's line, then the past one", res, err)
		}
		res, err = c.Search(regexp.MustCompile("now"), store.SearchOptions{SessionIDs: []string{"done"}, MaxResults: 10, MaxScanBytes: 1 << 20, MaxLineBytes: 100})
		if err != nil || len(res.Matches) != 1 || res.Matches[0].SessionID != done.ID {
			t.Errorf("by name: %+v %v", res, err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if _, err := c.Delete("cat"); !errors.Is(err, session.ErrRunning) {
			t.Errorf("running: %v", err)
		}
		for _, ref := range []string{past.ID, "done"} {
			id, err := c.Delete(ref)
			if err != nil || id == "" {
				t.Fatalf("delete %s: %q %v", ref, id, err)
			}
			if _, err := st.Session(id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s still recorded: %v", ref, err)
			}
			if _, err := c.Info(id); !errors.Is(err, session.ErrSessionNotFound) {
				t.Errorf("%s still described: %v", ref, err)
			}
		}
		if _, err := c.Delete(past.ID); !errors.Is(err, session.ErrSessionNotFound) {
			t.Errorf("second delete: %v", err)
		}
		if got, err := c.List(time.Time{}, true); err != nil || !slices.Equal(ids(got), []string{live.ID}) {
			t.Errorf("after deletes: %v %v", ids(got), err)
		}
	})
}

// A session another live server runs (the store records it as running) is
// not deleted here, and the error says so.
func TestCatalog_DeleteRunningElsewhere(t *testing.T) {
	dir := t.TempDir()
	firstMgr, firstStore := open(t, dir)
	running, err := firstMgr.Start(session.StartOptions{Argv: []string{"sleep", "100"}})
	if err != nil {
		t.Fatal(err)
	}
	// The other server: a process standing in for it (a server's own pid
	// counts as a restart, which marks its sessions lost).
	other := exec.Command("sleep", "100")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	if !firstStore.Sync(10 * time.Second) { // the start is committed before the owner changes
		t.Fatal("store did not commit")
	}
	storetest.SetOwner(t, dir, running.ID, other.Process.Pid, storetest.ProcStart(t, other.Process.Pid))

	mgr, st := open(t, dir)
	c := New(mgr, st)
	_, err = c.Delete(running.ID)
	want := fmt.Sprintf("session %s is running under another agentty (pid of its process: %d); stop it there first", running.ID, running.PID())
	if !errors.Is(err, session.ErrRunning) || !strings.Contains(err.Error(), want) {
		t.Fatalf("delete: %v, want ErrRunning saying %q", err, want)
	}
	if r, err := st.Session(running.ID); err != nil || r.State != record.StateRunning {
		t.Fatalf("record after the refused delete: %+v %v", r, err)
	}
}

// Without a store the catalog is the live sessions: searches read memory,
// newest session first, and a missing id is the manager's error.
func TestCatalog_NoStore(t *testing.T) {
	mgr := session.NewManager(session.Config{})
	t.Cleanup(mgr.Close)
	c := New(mgr, nil)
	a := run(t, mgr, session.StartOptions{Command: "printf 'x1\\nx2\\n'", Mode: record.ModePipe, Name: "a"})
	b := run(t, mgr, session.StartOptions{Command: "echo x3", Mode: record.ModePipe})
	if c.Recording() {
		t.Fatal("Recording() = true without a store")
	}
	if got, err := c.List(time.Time{}, true); err != nil || !slices.Equal(ids(got), []string{a.ID, b.ID}) {
		t.Errorf("list: %v %v", ids(got), err)
	}
	res, err := c.Search(regexp.MustCompile(`x\d`), store.SearchOptions{MaxResults: 10, MaxLineBytes: 100})
	var got []string
	for _, m := range res.Matches {
		got = append(got, m.SessionID+":"+m.Text)
	}
	if err != nil || !slices.Equal(got, []string{b.ID + ":x3", a.ID + ":x2", a.ID + ":x1"}) || !res.Complete {
		t.Errorf("search: %v %+v %v", got, res, err)
	}
	res, err = c.Search(regexp.MustCompile(`x\d`), store.SearchOptions{SessionIDs: []string{"a"}, MaxResults: 1, MaxLineBytes: 100})
	if err != nil || len(res.Matches) != 1 || res.Matches[0].Text != "x2" {
		t.Errorf("search a, one result: %+v %v", res, err)
	}
	if _, _, err := c.OutputLog("nope"); !errors.Is(err, session.ErrSessionNotFound) || errors.Is(err, store.ErrNotFound) {
		t.Errorf("output of unknown: %v", err)
	}
	if id, err := c.Delete("a"); err != nil || id != a.ID {
		t.Errorf("delete: %q %v", id, err)
	}
}
