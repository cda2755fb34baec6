package platform

import (
	"strings"
	"testing"
)

func TestParse_Values(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Strategies
		err  string
	}{
		{in: "", want: Strategies{}},
		{in: "0", want: Strategies{}},
		{in: "1", want: Strategies{Verdict: true, Tree: true, Guard: true}},
		{in: "all", want: Strategies{Verdict: true, Tree: true, Guard: true}},
		{in: "verdict", want: Strategies{Verdict: true}},
		{in: "tree, guard", want: Strategies{Tree: true, Guard: true}},
		{in: "verdict,bogus", err: `unknown strategy "bogus"`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse(%q) error = %v, want one containing %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			if back, _ := Parse(got.String()); back != got {
				t.Fatalf("String() %q does not parse back to %+v", got.String(), got)
			}
		})
	}
}
