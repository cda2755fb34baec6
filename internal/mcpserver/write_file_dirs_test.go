package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentty/agentty/internal/session"
)

// TestWriteFile_MissingDirectory: writing into a directory that does not
// exist says so and suggests make_dirs, instead of naming agentty's
// temporary file; nothing is created.
func TestWriteFile_MissingDirectory(t *testing.T) {
	c := newClient(t, session.Config{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		path   string
		append bool
		want   []string
	}{
		{"replace", filepath.Join(dir, "no", "such", "f.txt"), false, []string{"directory " + filepath.Join(dir, "no", "such") + " does not exist", "make_dirs=true"}},
		{"append", filepath.Join(dir, "no", "f.txt"), true, []string{"directory " + filepath.Join(dir, "no") + " does not exist", "make_dirs=true"}},
		{"parent is a file", filepath.Join(dir, "file", "f.txt"), false, []string{filepath.Join(dir, "file") + " is not a directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := c.on(t).toolError("write_file", map[string]any{"path": tc.path, "content": "x", "append": tc.append})
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("%q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "agentty-") {
				t.Errorf("names the temporary file: %q", msg)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("created: %v", entries)
	}
	var w WriteFileResult
	c.call("write_file", map[string]any{"path": filepath.Join(dir, "no", "such", "f.txt"), "content": "x", "make_dirs": true}, &w)
	if !w.Created || w.Size != 1 {
		t.Fatalf("with make_dirs: %+v", w)
	}
}
