package runner

import (
	"strings"
	"testing"
)

func TestCapture_HeadTailExactCounts(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		max    int
		text   string
		bytes  int64
		lines  int64
		omit   int64
	}{
		{"fits", []string{"a\n", "b"}, 64, "a\nb", 3, 2, 0},
		{"exactly max", []string{strings.Repeat("x", 64)}, 64, strings.Repeat("x", 64), 64, 1, 0},
		{"cut in small writes", strings.Split(strings.Repeat("0123456789\n", 20), ""), 44,
			"0123456789\n0123456789\n[... 176 bytes omitted ...]\n0123456789\n0123456789\n", 220, 20, 176},
		{"cut in one write", []string{strings.Repeat("0123456789\n", 20)}, 44,
			"0123456789\n0123456789\n[... 176 bytes omitted ...]\n0123456789\n0123456789\n", 220, 20, 176},
		// "é" is 2 bytes: a cut through one drops the half, counted as omitted.
		{"utf-8 split", []string{strings.Repeat("é", 100)}, 65,
			strings.Repeat("é", 16) + "\n[... 136 bytes omitted ...]\n" + strings.Repeat("é", 16), 200, 1, 136},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCapture(tc.max)
			for _, w := range tc.writes {
				if _, err := c.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			s := c.result()
			if s.Text != tc.text || s.Bytes != tc.bytes || s.Lines != tc.lines || s.OmittedBytes != tc.omit || s.Truncated != (tc.omit > 0) {
				t.Fatalf("got %q bytes=%d lines=%d omitted=%d truncated=%v\nwant %q bytes=%d lines=%d omitted=%d",
					s.Text, s.Bytes, s.Lines, s.OmittedBytes, s.Truncated, tc.text, tc.bytes, tc.lines, tc.omit)
			}
		})
	}
}

func TestPager_LinesAndTotals(t *testing.T) {
	p := &pager{first: 2, size: 2, maxBytes: 1 << 20}
	for _, w := range []string{"l0\nl1", "\nl2\nl3\nl4", "\nl5"} {
		_, _ = p.Write([]byte(w))
	}
	if string(p.page) != "l2\nl3\n" || p.lines() != 6 {
		t.Fatalf("page %q lines %d", p.page, p.lines())
	}
}
