package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzClean(f *testing.F) {
	for _, s := range append(append([]string{}, streamCorpus...), cursorCorpus...) {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Add([]byte("\x1b["+strings.Repeat(";", 40)+"5Gx"), true)
	f.Add([]byte("a\x1b[99999999999999999999C\x1b[2147483647@X\x1b[9999999P"), true)
	f.Add([]byte("\xe4\xb8"), false)
	f.Fuzz(func(t *testing.T, data []byte, final bool) {
		text, n := Clean(data, final)
		checkOutput(t, data, text, n, final)
		if strings.ContainsRune(text, 0x1b) {
			t.Fatalf("Clean(%q) = %q: ESC leaked", data, text)
		}
		// The fast path is an optimisation and must agree with the
		// interpreter wherever it applies.
		if ft, fn, ok := cleanFast(data, final); ok {
			if st, sn := cleanSlow(data, final); ft != st || fn != sn {
				t.Fatalf("fast path %q, %d; slow path %q, %d for %q", ft, fn, st, sn, data)
			}
		}
		// The held-back tail must itself be cleanable to the end.
		rest := data[n:]
		text, n = Clean(rest, true)
		checkOutput(t, rest, text, n, true)

		raw, rn := Raw(data, final)
		if !utf8.ValidString(raw) || rn < 0 || rn > len(data) || (final && rn != len(data)) {
			t.Fatalf("Raw(%q, %v) = %q, %d", data, final, raw, rn)
		}
		if utf8.Valid(data) && final && raw != string(data) {
			t.Fatalf("Raw changed valid input %q to %q", data, raw)
		}
	})
}
