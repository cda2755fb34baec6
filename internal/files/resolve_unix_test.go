//go:build unix

package files

import "testing"

func TestResolve_UnixPaths(t *testing.T) {
	for p, want := range map[string]string{"notes.txt": "/home/ann/notes.txt", "/etc/x": "/etc/x", `C:\x`: `/home/ann/C:\x`} {
		if got, err := Resolve("/home/ann", p); err != nil || got != want {
			t.Fatalf("Resolve(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
}
