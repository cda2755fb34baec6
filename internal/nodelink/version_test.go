package nodelink

import "testing"

func TestIsVersion_Lines(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want bool
	}{
		{"agentty 0.1.0", true},
		{"agentty 0.1.0 (commit 3800ab5, built 2026-11-28T15:18:18Z) linux/amd64", true},
		{"agentty 0.1.0 (commit unknown, built unknown) linux/arm64\n", true},
		{"agentty 0.1.0-dev (commit 3800ab5, built 2026-11-28T15:18:18Z) linux/amd64", false},
		{"agentty 0.1", false},
		{"agenttyx 0.1.0", false},
		{"", false},
		{"sh: agentty: not found", false},
	} {
		if got := isVersion(tc.out, "0.1.0"); got != tc.want {
			t.Errorf("isVersion(%q, 0.1.0) = %v, want %v", tc.out, got, tc.want)
		}
	}
}
