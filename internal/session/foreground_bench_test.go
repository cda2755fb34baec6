package session

import "testing"

// BenchmarkForeground measures finding who reads a session's input (the
// terminal's foreground group and every process of the session): the work
// the policy gate adds to each send_input.
func BenchmarkForeground(b *testing.B) {
	m := NewManager(Config{})
	defer m.Close()
	s, err := m.Start(StartOptions{Argv: []string{"bash", "--norc", "--noprofile", "-c", "sleep 60 & python3 -q"}})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		f, err := s.Foreground()
		if err != nil || len(f.Procs) == 0 {
			b.Fatal(f, err)
		}
	}
}
