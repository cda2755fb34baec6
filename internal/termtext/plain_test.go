package termtext

import "testing"

func TestIsPlain_MatchesClean(t *testing.T) {
	for _, s := range []string{"", "hello world", "a\tb", "x\x1b[31my", "caf\xc3\xa9", "bar\r", "\x7f", "tab\t\ttab ~"} {
		clean, _ := Clean([]byte(s), true)
		raw, _ := Raw([]byte(s), true)
		if IsPlain([]byte(s)) && (clean != s || raw != s) {
			t.Errorf("%q is plain but Clean gives %q and Raw %q", s, clean, raw)
		}
	}
	for s, want := range map[string]bool{"hello": true, "a\tb": true, "x\x1b[m": false, "é": false, "a\rb": false} {
		if got := IsPlain([]byte(s)); got != want {
			t.Errorf("IsPlain(%q) = %v, want %v", s, got, want)
		}
	}
}
