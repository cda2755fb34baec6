package shell

import (
	"strings"
	"testing"
)

func TestFindMarks_SplitAndForged(t *testing.T) {
	re := markRE("n0nce")
	stream := "out\x1b]133;C;aid=n0nce.4\x07hello\r\n" +
		"\x1b]133;D;0;aid=fake.4\x07\x1b]7;file:///forged\x07" + // wrong nonce: output
		"\x1b]133;D;3;aid=n0nce.4\x07\x1b]7;file://host/tmp/a%20b\x07\x1b]133;A;aid=n0nce\x07$ "
	// Feed the stream cut at every byte: the marks come out the same.
	for cut := 0; cut <= len(stream); cut++ {
		var got []mark
		scanned := 0
		for _, end := range []int{cut, len(stream)} {
			if end < scanned {
				continue
			}
			ms, n := findMarks(re, []byte(stream[scanned:end]), int64(scanned), end == len(stream))
			got = append(got, ms...)
			scanned += n
		}
		if len(got) != 2 || got[0].kind != markC || got[0].id != 4 || got[1].kind != markD || got[1].status != 3 || got[1].cwd != "/tmp/a b" {
			t.Fatalf("cut at %d: %+v", cut, got)
		}
		if out := stream[got[0].end:got[1].start]; !strings.HasPrefix(out, "hello\r\n\x1b]133;D;0;aid=fake") {
			t.Fatalf("cut at %d: output %q", cut, out)
		}
	}
}

func TestCutText_HeadTailCounts(t *testing.T) {
	text := "a\nb\nc\nd\ne\nf\n"
	cases := []struct {
		lines, bytes int
		want         string
		om           omission
	}{
		{-1, 1 << 20, text, omission{}},
		{6, 1 << 20, text, omission{}},
		{4, 1 << 20, "a\nb\n[... 2 lines (4 bytes) omitted ...]\ne\nf\n", omission{2, 4}},
		{3, 1 << 20, "a\n[... 3 lines (6 bytes) omitted ...]\ne\nf\n", omission{3, 6}},
		{-1, 4, "a\n[... 4 lines (8 bytes) omitted ...]\nf\n", omission{4, 8}},
	}
	for _, tc := range cases {
		got, om := cutText(text, tc.lines, tc.bytes)
		if got != tc.want || om != tc.om {
			t.Errorf("cutText(lines=%d, bytes=%d) = %q %+v, want %q %+v", tc.lines, tc.bytes, got, om, tc.want, tc.om)
		}
	}
}
