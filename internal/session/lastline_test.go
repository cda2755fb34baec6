package session

import (
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/outlog"
)

func TestLastLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   string
	}{
		{"empty", nil, ""},
		{"newest line", []string{"one\ntwo\n"}, "two"},
		{"trailing blank lines", []string{"one\ntwo\n\n  \n"}, "two"},
		{"partial line counts", []string{"one\nprompt> "}, "prompt>"},
		{"escapes stripped", []string{"\x1b[1;32mgreen\x1b[0m\n"}, "green"},
		{"carriage-return redraw", []string{"10%\r50%\r100%\n"}, "100%"},
		{"only the window is read", []string{strings.Repeat("x", 10000) + "\nlast\n"}, "last"},
		{"long line clipped", []string{strings.Repeat("y", 300) + "\n"}, strings.Repeat("y", maxLastLine) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Session{log: outlog.NewMemory(1 << 20)}
			for _, c := range tc.chunks {
				s.log.Append(outlog.Stdout, []byte(c))
			}
			if got := s.LastLine(); got != tc.want {
				t.Fatalf("LastLine = %q, want %q", got, tc.want)
			}
		})
	}
}
