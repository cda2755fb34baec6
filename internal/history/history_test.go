package history

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/outlog"
)

func memLog(text string) outlog.Log {
	l := outlog.NewMemory(0)
	l.Append(outlog.Stdout, []byte(text))
	return l
}

func render(ls []Line) string {
	var parts []string
	for _, ln := range ls {
		sep := "-"
		if ln.Match {
			sep = ":"
		}
		parts = append(parts, fmt.Sprintf("%d%s%s", ln.N, sep, ln.Text))
	}
	return strings.Join(parts, "|")
}

func TestGet_Lines(t *testing.T) {
	const text = "one\ntwo\nthree\nfour\nfive" // no final newline: five is line 5
	cases := []struct {
		name  string
		q     Query
		want  string
		total int64
	}{
		{"default tail", Query{}, "1-one|2-two|3-three|4-four|5-five", 5},
		{"last 2", Query{Count: 2}, "4-four|5-five", 5},
		{"from end", Query{Count: 2, FromEnd: 1}, "3-three|4-four", 5},
		{"from end past start", Query{Count: 3, FromEnd: 4}, "1-one", 5},
		{"absolute", Query{StartLine: 2, Count: 2}, "2-two|3-three", 5},
		{"absolute past end", Query{StartLine: 9, Count: 2}, "", 5},
		{"only partial line", Query{StartLine: 5, Count: 1}, "5-five", 5},
		{"bytes cut keeps newest", Query{Count: 5, MaxBytes: 11}, "4-four|5-five", 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Get(memLog(text), tc.q)
			if got := render(r.Lines); got != tc.want || r.TotalLines != tc.total {
				t.Errorf("lines %q total %d, want %q total %d", got, r.TotalLines, tc.want, tc.total)
			}
		})
	}
	if r := Get(memLog(""), Query{}); len(r.Lines) != 0 || r.TotalLines != 0 {
		t.Errorf("empty log: %+v", r)
	}
	if r := Get(memLog("a\x1b[31mred\x1b[0m\nbar 50%\rbar 100%\n"), Query{}); render(r.Lines) != "1-ared|2-bar 100%" {
		t.Errorf("clean text: %q", render(r.Lines))
	}
}

func TestGet_Grep(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "l%d\n", i)
	}
	text := b.String()
	cases := []struct {
		name    string
		q       Query
		want    string
		matches int
		trunc   bool
	}{
		{"no context", Query{Grep: regexp.MustCompile(`^l1[05]$`)}, "10:l10|15:l15", 2, false},
		{"context merges blocks", Query{Grep: regexp.MustCompile(`^l(10|12)$`), Context: 1}, "9-l9|10:l10|11-l11|12:l12|13-l13", 2, false},
		{"adjacent blocks merge", Query{Grep: regexp.MustCompile(`^l(10|13)$`), Context: 1}, "9-l9|10:l10|11-l11|12-l12|13:l13|14-l14", 2, false},
		{"newest matches kept", Query{Grep: regexp.MustCompile(`^l2\d$`), MaxMatches: 2}, "28:l28|29:l29", 10, true},
		{"window", Query{Grep: regexp.MustCompile(`^l\d$`), StartLine: 5, Count: 3}, "5:l5|6:l6|7:l7", 3, false},
		{"at the edges", Query{Grep: regexp.MustCompile(`^l(1|30)$`), Context: 2}, "1:l1|2-l2|3-l3|28-l28|29-l29|30:l30", 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Get(memLog(text), tc.q)
			if got := render(r.Lines); got != tc.want || r.Matches != tc.matches || r.Truncated != tc.trunc {
				t.Errorf("got %q matches %d truncated %v\nwant %q matches %d truncated %v", got, r.Matches, r.Truncated, tc.want, tc.matches, tc.trunc)
			}
		})
	}
}
