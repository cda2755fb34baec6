package excerpt

import (
	"strings"
	"testing"
)

func TestQ_Bounds(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"short", "pty", `"pty"`},
		{"escaped", "a\nb", `"a\nb"`},
		{"exactly max", strings.Repeat("x", Max), `"` + strings.Repeat("x", Max) + `"`},
		{"long", strings.Repeat("line of text\n", 1000), `"line of text\nline of text\nline of text\nline of text\nline of text"… (13000 bytes)`},
		{"control bytes", strings.Repeat("\x01", 2_400_000), `"` + strings.Repeat(`\x01`, Max) + `"… (2400000 bytes)`},
		// é is two bytes; the cut never splits it.
		{"rune boundary", "x" + strings.Repeat("é", 40), `"x` + strings.Repeat("é", 31) + `"… (81 bytes)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Q(c.in); got != c.want {
				t.Fatalf("Q = %s, want %s", got, c.want)
			}
		})
	}
}

func TestClip_KeepsHeadAndTail(t *testing.T) {
	msg := "maxLength: " + strings.Repeat("x", 10000) + " contains 10000 code points, more than 64"
	got := Clip(msg, 100)
	want := "maxLength: " + strings.Repeat("x", 39) + " […9952 bytes cut…] " + strings.Repeat("x", 9) + " contains 10000 code points, more than 64"
	if got != want {
		t.Fatalf("Clip =\n%s\nwant\n%s", got, want)
	}
	if short := "short"; Clip(short, 100) != short {
		t.Fatal("a short message changed")
	}
}
