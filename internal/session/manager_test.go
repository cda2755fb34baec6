package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/record"
)

func read(t *testing.T, s *Session, c Cursor, w WaitOptions) Result {
	t.Helper()
	r, err := s.Read(context.Background(), c, w, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestManager_LimitsAndTTL(t *testing.T) {
	m := NewManager(Config{MaxSessions: 2, ExitedTTL: 50 * time.Millisecond})
	defer m.Close()
	a, err := m.Start(StartOptions{Command: "exit 0", Mode: record.ModePipe, Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(StartOptions{Argv: []string{"sleep", "30"}, Name: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(StartOptions{Command: "true"}); !errors.Is(err, ErrTooManySessions) {
		t.Fatalf("third session: %v", err)
	}
	if s, err := m.Get("b"); err != nil || s.Name != "b" {
		t.Fatalf("by name: %v", err)
	}
	if err := m.Delete("b"); !errors.Is(err, ErrRunning) {
		t.Fatalf("delete running: %v", err)
	}
	<-a.Done()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := m.Get(a.ID); errors.Is(err, ErrSessionNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("exited session not expired after its TTL")
		}
		time.Sleep(5 * time.Millisecond) // polling the registry: the expiry timer has no event to wait on
	}
}

func TestManager_CloseKillsEverything(t *testing.T) {
	m := NewManager(Config{KillGrace: 100 * time.Millisecond})
	var pids []int
	for _, mode := range []record.Mode{record.ModePTY, record.ModePipe} {
		s, err := m.Start(StartOptions{Command: "trap '' TERM; sleep 1000 & wait", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, s.PID())
	}
	m.Close()
	for _, pid := range pids {
		if signalable(pid) {
			t.Fatalf("pid %d survived Close", pid)
		}
	}
	if _, err := m.Start(StartOptions{Command: "true"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("start after close: %v", err)
	}
}

func TestSession_ReadersAndPipeSignals(t *testing.T) {
	m := NewManager(Config{})
	defer m.Close()
	prog := "import sys\ntry:\n    sys.stdin.readline()\nexcept KeyboardInterrupt:\n    print('interrupted', flush=True)\n    sys.exit(7)"
	s, err := m.Start(StartOptions{Argv: []string{"python3", "-c", prog}, Mode: record.ModePipe})
	if err != nil {
		t.Fatal(err)
	}
	r := read(t, s, Cursor{}, WaitOptions{Timeout: 20 * time.Second})
	if r.Wait.Reason != ReasonAwaiting {
		t.Fatalf("start: %s", r.Wait.Reason)
	}
	late := s.RegisterReader(true)
	if _, err := s.Send(Input{Keys: []string{"ctrl+c"}}, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	r = read(t, s, Cursor{}, WaitOptions{Timeout: 20 * time.Second})
	if r.Wait.Reason != ReasonExited || r.Output.Text != "interrupted\n" || s.Status().Code != 7 {
		t.Fatalf("ctrl+c in pipe mode: %s %q %+v", r.Wait.Reason, r.Output.Text, s.Status())
	}
	r = read(t, s, Cursor{Reader: late}, WaitOptions{})
	if r.Output.Text != "interrupted\n" {
		t.Fatalf("second reader: %q", r.Output.Text)
	}
	if again := read(t, s, Cursor{Reader: late}, WaitOptions{}); again.Output.Text != "" {
		t.Fatalf("second read repeats output: %q", again.Output.Text)
	}
	if err := s.UnregisterReader(late); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(context.Background(), Cursor{Reader: late}, WaitOptions{}, ReadOptions{}); !errors.Is(err, ErrReaderNotFound) {
		t.Fatalf("read unregistered: %v", err)
	}
	if _, err := s.Send(Input{Text: "x"}, time.Now().Add(time.Second)); !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exited with code 7") {
		t.Fatalf("send to exited: %v", err)
	}
}

// TestManager_DefaultEnv: a local child starts with EnvFunc's variables,
// Env's over them and the caller's over both; EnvFunc runs at each start.
func TestManager_DefaultEnv(t *testing.T) {
	calls := 0
	m := NewManager(Config{Env: map[string]string{"A": "env", "B": "env"},
		EnvFunc: func() map[string]string { calls++; return map[string]string{"A": "func", "B": "func", "C": "func"} }})
	defer m.Close()
	for i := 1; i <= 2; i++ {
		s, err := m.Start(StartOptions{Argv: []string{"sh", "-c", `printf '%s %s %s' "$A" "$B" "$C"`}, Mode: record.ModePipe,
			Env: map[string]string{"B": "caller"}})
		if err != nil {
			t.Fatal(err)
		}
		if r := s.Wait(context.Background(), 0, WaitOptions{Timeout: 10 * time.Second}); r.Reason != ReasonExited {
			t.Fatalf("start %d: wait ended %s, want exited", i, r.Reason)
		}
		if got := string(s.log.Read(0, -1, 1<<20, outlog.Both).Data); got != "env caller func" {
			t.Fatalf("start %d: child saw %q, want %q", i, got, "env caller func")
		}
		if calls != i {
			t.Fatalf("EnvFunc ran %d times for %d starts", calls, i)
		}
		if got := s.Info().EnvKeys; !slices.Equal(got, []string{"B"}) {
			t.Fatalf("recorded env keys %v, want the caller's [B]", got)
		}
	}
}
