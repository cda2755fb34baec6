package procenv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookPath_Cases(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"tool": 0o755, "plain": 0o644} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, path, want, err string
	}{
		{"tool", "/nonexistent:" + bin, filepath.Join(bin, "tool"), ""},
		{"tool", "bin", filepath.Join(bin, "tool"), ""}, // relative PATH entry: relative to dir
		{"./bin/tool", "", filepath.Join(bin, "tool"), ""},
		{"plain", bin, "", ErrNotInPath.Error()},
		{"./bin/plain", "", "", "not executable"},
		{"./bin", "", "", "is a directory"},
		{"./missing", "", "", "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name+" in "+c.path, func(t *testing.T) {
			got, err := LookPath(c.name, dir, c.path)
			if c.err == "" {
				if err != nil || got != c.want {
					t.Fatalf("LookPath = %q, %v; want %q", got, err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("LookPath = %q, %v; want error containing %q", got, err, c.err)
			}
			if c.err == ErrNotInPath.Error() && !errors.Is(err, ErrNotInPath) {
				t.Fatalf("error %v is not ErrNotInPath", err)
			}
		})
	}
}

func TestListAndGet(t *testing.T) {
	env := List(map[string]string{"B": "2", "A": "1=x", "C": ""})
	if strings.Join(env, " ") != "A=1=x B=2 C=" {
		t.Fatalf("List = %q", env)
	}
	if Get(env, "A") != "1=x" || Get(env, "C") != "" || Get(env, "Z") != "" {
		t.Fatalf("Get on %q", env)
	}
}
