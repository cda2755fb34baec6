package termtext

import "testing"

func TestRaw(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		final    bool
		want     string
		consumed int
	}{
		{"escapes untouched", "\x1b[31mred\x1b[0m\r\n", true, "\x1b[31mred\x1b[0m\r\n", 14},
		{"invalid byte", "a\xffb", true, "a\uFFFDb", 3},
		{"maximal subpart is one replacement", "a\xe4\xb8X", false, "a\uFFFDX", 4},
		{"lone 0x9b", "\x9b31m", true, "\uFFFD31m", 4},
		{"incomplete char held", "ab\xe4\xb8", false, "ab", 2},
		{"incomplete char after invalid held", "\xff\xe4\xb8", false, "\uFFFD", 1},
		{"truncated char at final", "ab\xe4\xb8", true, "ab\uFFFD", 4},
		{"complete char", "\xe4\xb8\xad", false, "中", 3},
		{"incomplete escape not held", "a\x1b[3", false, "a\x1b[3", 4},
		{"empty", "", false, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Raw([]byte(tt.in), tt.final)
			if got != tt.want || n != tt.consumed {
				t.Errorf("Raw(%q, %v) = %q, %d; want %q, %d", tt.in, tt.final, got, n, tt.want, tt.consumed)
			}
		})
	}
}
