package session

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/record"
)

// TestLimits_EndSessions: an idle session is terminated after the idle
// timeout, one kept busy with input is not, and max_runtime ends a session
// regardless of use. Each is observed through Done, with a deadline.
func TestLimits_EndSessions(t *testing.T) {
	var exits = make(chan string, 4)
	m := NewManager(Config{IdleTimeout: 3 * time.Second, OnExit: func(s *Session) { exits <- s.ID + ":" + s.EndedBy() }})
	defer m.Close()
	idle, err := m.Start(StartOptions{Argv: []string{"cat"}, Mode: record.ModePipe})
	if err != nil {
		t.Fatal(err)
	}
	busy, err := m.Start(StartOptions{Argv: []string{"cat"}, Mode: record.ModePipe})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond) // the agent's activity: input every 50 ms
	defer tick.Stop()
loop:
	for {
		select {
		case <-idle.Done():
			break loop
		case <-tick.C:
			if _, err := busy.Send(Input{Text: "x\n"}, time.Now().Add(time.Second)); err != nil {
				t.Fatalf("busy session: %v", err)
			}
		case <-deadline:
			t.Fatal("idle session was not terminated")
		}
	}
	if got := idle.EndedBy(); got != EndedByIdle {
		t.Fatalf("ended_by %q", got)
	}
	if st := idle.Status(); st == nil || st.Signal != "SIGTERM" {
		t.Fatalf("idle session status %+v, want SIGTERM", st)
	}
	if isDone(busy.Done()) || busy.EndedBy() != "" {
		t.Fatal("a session in use was ended")
	}
	if got := <-exits; got != idle.ID+":"+EndedByIdle {
		t.Fatalf("OnExit got %q", got)
	}
	if info := idle.Info(); info.EndedBy != EndedByIdle {
		t.Fatalf("info ended_by %q", info.EndedBy)
	}

	m2 := NewManager(Config{MaxRuntime: 200 * time.Millisecond})
	defer m2.Close()
	s, err := m2.Start(StartOptions{Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("max_runtime did not end the session")
	}
	if s.EndedBy() != EndedByRuntime {
		t.Fatalf("ended_by %q", s.EndedBy())
	}
}

func TestLimits_MaxInputBytes(t *testing.T) {
	m := NewManager(Config{MaxInputBytes: 10})
	defer m.Close()
	s, err := m.Start(StartOptions{Argv: []string{"cat"}, Mode: record.ModePipe})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Send(Input{Text: "0123456789", Enter: true}, time.Now().Add(time.Second))
	if !errors.Is(err, ErrInputTooLarge) || !strings.Contains(err.Error(), "11 bytes") || !strings.Contains(err.Error(), "at most 10") {
		t.Fatalf("err = %v", err)
	}
	if n, err := s.Send(Input{Text: "012345678", Enter: true}, time.Now().Add(time.Second)); err != nil || n != 10 {
		t.Fatalf("at the limit: n=%d err=%v", n, err)
	}
}
