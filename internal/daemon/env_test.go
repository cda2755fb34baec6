package daemon

import (
	"maps"
	"strings"
	"testing"
)

func TestEnv_RoundTrip(t *testing.T) {
	env := []string{"A=1", "MULTI=line one\nline two", "EMPTY=", "EQ=a=b", "BASH_FUNC_f%%=() { echo \"é\"; }", "=ignored", "NOEQUALS"}
	h := EncodeEnv(env)
	if strings.ContainsAny(h, "\r\n") {
		t.Fatalf("encoded environment is not a header value: %q", h)
	}
	got, err := DecodeEnv(h)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "1", "MULTI": "line one\nline two", "EMPTY": "", "EQ": "a=b", "BASH_FUNC_f%%": "() { echo \"é\"; }"}
	if !maps.Equal(got, want) {
		t.Fatalf("round trip: %q, want %q", got, want)
	}
}

func TestEnv_Bad(t *testing.T) {
	if m, err := DecodeEnv(""); m != nil || err != nil {
		t.Fatalf("no header: %v %v, want nil nil", m, err)
	}
	for name, h := range map[string]string{
		"not base64": "%%%",
		"not JSON":   "bm90IGpzb24=",
		"too large":  strings.Repeat("A", maxEnv+4),
	} {
		if _, err := DecodeEnv(h); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}
