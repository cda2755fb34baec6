package nodebackend

import (
	"errors"
	"testing"
)

func TestParseTarget_Forms(t *testing.T) {
	for _, c := range []struct {
		host, key string
		bad       bool
	}{
		{"docker://web", "docker://web", false},
		{"docker://3f2a9c", "docker://3f2a9c", false},
		{"k8s://ns/pod", "k8s://ns/pod", false},
		{"k8s://ns/pod/sidecar", "k8s://ns/pod/sidecar", false},
		{"docker://", "", true},
		{"docker://a/b", "", true},
		{"k8s://ns", "", true},
		{"k8s://ns/", "", true},
		{"k8s://ns/pod/", "", true},
		{"k8s://ns/pod/c/x", "", true},
		{"user@host", "", true},
	} {
		t.Run(c.host, func(t *testing.T) {
			tg, err := ParseTarget(c.host)
			if c.bad {
				if !errors.Is(err, ErrHost) {
					t.Fatalf("err %v, want ErrHost", err)
				}
				return
			}
			if err != nil || tg.Key() != c.key {
				t.Fatalf("key %q err %v, want %q", tg.Key(), err, c.key)
			}
		})
	}
	if IsNode("user@host") || !IsNode("docker://x") || !IsNode("k8s://a/b") {
		t.Fatal("IsNode")
	}
}
