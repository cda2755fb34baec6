package re2

import (
	"strings"
	"testing"
)

func TestCompile_ExplainsWhatRE2Lacks(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string // "" = compiles
	}{
		{`(?<=x)y`, "RE2 has no look-behind"},
		{`(?<!x)y`, "RE2 has no look-behind"},
		{`x(?=y)`, "RE2 has no look-ahead"},
		{`x(?!y)`, "RE2 has no look-ahead"},
		{`(?>x+)`, "RE2 has no atomic groups"},
		{`(a)\1`, "RE2 has no backreferences"},
		{`f(`, "escape literal characters to match them: \\("},
		{`*x`, "escape literal characters"},
		{`[a`, "escape literal characters"},
		{`\q`, "invalid escape sequence"},
		{`(?<name>x)\b`, ""},
		{`(?m)^done$`, ""},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := Compile(tc.expr)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want it to say %q", err, tc.want)
			case err != nil && !strings.Contains(err.Error(), "error parsing regexp"):
				t.Fatalf("the original error is gone: %v", err)
			}
		})
	}
}
