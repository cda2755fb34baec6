package daemon

import (
	"slices"
	"strings"
	"testing"
)

func repeat(s string, n int) string { return strings.Repeat(s, n) }
func contains(s, sub string) bool   { return strings.Contains(s, sub) }

func TestDiff_NamesEachSetting(t *testing.T) {
	d := map[string]string{"max-sessions": "64", "screen": "true", "data-dir": "/a b", "gone": "x"}
	c := map[string]string{"max-sessions": "7", "screen": "true", "data-dir": "", "new": "y"}
	want := []string{
		`data-dir: daemon "/a b", this serve ""`,
		"gone: daemon x, this serve (not set)",
		"max-sessions: daemon 64, this serve 7",
		"new: daemon (not set), this serve y",
	}
	if got := Diff(d, c); !slices.Equal(got, want) {
		t.Errorf("Diff =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := Diff(d, d); len(got) != 0 {
		t.Errorf("Diff of equal settings: %v", got)
	}
	if Fingerprint(d) == Fingerprint(c) || Fingerprint(d) != Fingerprint(map[string]string{"gone": "x", "data-dir": "/a b", "screen": "true", "max-sessions": "64"}) {
		t.Error("Fingerprint must follow the settings, not their order")
	}
}

func TestNewer(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"0.2.0", "0.1.9", true},
		{"0.1.10", "0.1.9", true},
		{"v1.0.0", "0.9.0", true},
		{"0.1.0", "0.1.0-dev", true},
		{"0.1.0-dev", "0.1.0", false},
		{"0.1.0-dev", "0.0.1", true},
		{"0.1.0", "0.1.0", false},
		{"0.1", "0.1.0", false},
		{"0.0.1", "0.1.0-dev", false},
	}
	for _, tc := range cases {
		if got := Newer(tc.a, tc.b); got != tc.want {
			t.Errorf("Newer(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
