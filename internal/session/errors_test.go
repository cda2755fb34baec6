package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/record"
)

// The engine's refusals are typed errors carrying their facts, unwrapping
// to their sentinels, and their text says what happened without naming any
// front end's tools (the MCP layer adds what to do next).
func TestErrors_Typed(t *testing.T) {
	m := NewManager(Config{MaxSessions: 3, ExitedTTL: time.Hour})
	defer m.Close()
	pipe, err := m.Start(StartOptions{Argv: []string{"sleep", "1000"}, Mode: record.ModePipe})
	if err != nil {
		t.Fatal(err)
	}
	done, err := m.Start(StartOptions{Argv: []string{"sh", "-c", "exit 3"}, Mode: record.ModePipe})
	if err != nil {
		t.Fatal(err)
	}
	<-done.Done()
	if _, err := m.Start(StartOptions{Argv: []string{"sleep", "1000"}}); err != nil {
		t.Fatal(err)
	}
	_, getErr := m.Get("nosuch")
	_, startErr := m.Start(StartOptions{Argv: []string{"true"}})
	_, readErr := pipe.Read(context.Background(), Cursor{Reader: 7}, WaitOptions{}, ReadOptions{})
	_, sendErr := done.Send(Input{Text: "x"}, time.Now().Add(5*time.Second))
	_, screenErr := pipe.Screen(context.Background(), ScreenOptions{})

	cases := []struct {
		name     string
		err      error
		sentinel error
		want     error // the typed error, compared deeply
		text     string
	}{
		{"unknown session", getErr, ErrSessionNotFound, &NotFoundError{ID: "nosuch", ExitedTTL: time.Hour},
			`session not found: "nosuch"`},
		{"session limit", startErr, ErrTooManySessions, &TooManySessionsError{Count: 3, Limit: 3},
			"too many sessions: 3 sessions exist (limit 3)"},
		{"delete running", m.Delete(pipe.ID), ErrRunning, &RunningError{ID: pipe.ID},
			fmt.Sprintf("process is still running: session %s is running", pipe.ID)},
		{"send to exited", sendErr, ErrExited, &ExitedError{ID: done.ID, Status: &record.ExitStatus{Code: 3}},
			fmt.Sprintf("process has exited: session %s exited with code 3", done.ID)},
		{"resize a pipe", pipe.Resize(30, 100), ErrNotPTY, &NotPTYError{ID: pipe.ID, Op: OpResize},
			fmt.Sprintf("not a PTY session: session %s runs with pipes", pipe.ID)},
		{"screen of a pipe", screenErr, ErrNotPTY, &NotPTYError{ID: pipe.ID, Op: OpScreen},
			fmt.Sprintf("not a PTY session: session %s runs with pipes, which have no terminal", pipe.ID)},
		{"unregister unknown reader", pipe.UnregisterReader(7), ErrReaderNotFound, &ReaderNotFoundError{ID: pipe.ID, Reader: 7},
			fmt.Sprintf("reader not found: reader 7 on session %s", pipe.ID)},
		{"read unknown reader", readErr, ErrReaderNotFound, &ReaderNotFoundError{ID: pipe.ID, Reader: 7, Readers: []int{0}},
			fmt.Sprintf("reader not found: reader 7 on session %s; readers are [0]", pipe.ID)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.sentinel) {
				t.Fatalf("%v is not %v", tc.err, tc.sentinel)
			}
			if tc.err.Error() != tc.text {
				t.Errorf("text %q, want %q", tc.err.Error(), tc.text)
			}
			if !reflect.DeepEqual(tc.err, tc.want) {
				t.Errorf("error %#v, want %#v", tc.err, tc.want)
			}
		})
	}
}
