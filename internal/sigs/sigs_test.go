package sigs

import (
	"syscall"
	"testing"
)

func TestSigs_NamesAndParses(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		name string
	}{
		{syscall.SIGINT, "SIGINT"}, {syscall.SIGKILL, "SIGKILL"}, {syscall.SIGTERM, "SIGTERM"},
		{TSTP, "SIGTSTP"}, {CONT, "SIGCONT"}, {WINCH, "SIGWINCH"}, {USR1, "SIGUSR1"}, {USR2, "SIGUSR2"},
		{XCPU, "SIGXCPU"}, {XFSZ, "SIGXFSZ"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Name(c.sig); got != c.name {
				t.Errorf("Name(%d) = %q, want %q", int(c.sig), got, c.name)
			}
			for _, in := range []string{c.name, c.name[3:]} {
				if got, ok := Parse(in); !ok || got != c.sig {
					t.Errorf("Parse(%q) = %d, %v; want %d, true", in, int(got), ok, int(c.sig))
				}
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		if got := Name(syscall.Signal(200)); got != "" {
			t.Errorf("Name(200) = %q, want \"\"", got)
		}
		if got, ok := Parse("SIGNOPE"); ok {
			t.Errorf("Parse(SIGNOPE) = %d, true; want false", int(got))
		}
	})
}
