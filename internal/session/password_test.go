package session

import (
	"context"
	"testing"
	"time"
)

// A prompt read with echo off is a password prompt in every verdict: the
// terminal's modes must be the ones the blocked read uses, not ones read
// a moment before the program turned echo off (bash prints the prompt of
// read -s, then turns echo off, then reads). Repeated: it is a race.
func TestWait_PasswordPromptVerdict(t *testing.T) {
	m := NewManager(Config{KillGrace: 100 * time.Millisecond})
	defer m.Close()
	for i := range 50 {
		s, err := m.Start(StartOptions{Argv: []string{"bash", "--norc", "-c", "read -r -s -p 'Password: ' pw; echo ${#pw}"}})
		if err != nil {
			t.Fatal(err)
		}
		r := s.Wait(context.Background(), 0, WaitOptions{Timeout: 10 * time.Second})
		if r.Reason != ReasonAwaiting || r.State != "awaiting_password" {
			t.Fatalf("run %d: reason %s state %s (%s), want awaiting_input with state awaiting_password", i, r.Reason, r.State, r.Detail)
		}
		if _, err := s.Terminate(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
	}
}
