package procenv

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// These run Windows's rules (case-insensitive names, PATHEXT, backslash
// and drive-letter paths) on any OS: the logic is plain Go.

func TestSet_CaseInsensitiveNames(t *testing.T) {
	cases := []struct {
		name string
		fold bool
		want map[string]string
	}{
		{"windows: the caller's PATH replaces the inherited Path", true, map[string]string{"PATH": "C:\\bin", "TERM": "dumb"}},
		{"unix: two variables", false, map[string]string{"Path": "C:\\Windows", "PATH": "C:\\bin", "TERM": "dumb"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"Path": "C:\\Windows", "TERM": "dumb"}
			set(env, "PATH", "C:\\bin", c.fold)
			if !maps.Equal(env, c.want) {
				t.Fatalf("env = %v, want %v", env, c.want)
			}
		})
	}
	t.Run("get", func(t *testing.T) {
		env := []string{"Path=C:\\Windows", "ComSpec=C:\\Windows\\system32\\cmd.exe"}
		if got := get(env, "PATH", true); got != "C:\\Windows" {
			t.Fatalf("get(PATH, fold) = %q", got)
		}
		if got := get(env, "PATH", false); got != "" {
			t.Fatalf("get(PATH, no fold) = %q, want none", got)
		}
		if got := get(env, "COMSPEC", true); got != "C:\\Windows\\system32\\cmd.exe" {
			t.Fatalf("get(COMSPEC, fold) = %q", got)
		}
	})
}

func TestCandidates_PATHEXTOrder(t *testing.T) {
	cases := []struct {
		p, pathext string
		want       []string
	}{
		{"C:/bin/tool", ".COM;.EXE;.BAT;.CMD", []string{"C:/bin/tool.com", "C:/bin/tool.exe", "C:/bin/tool.bat", "C:/bin/tool.cmd"}},
		{"C:/bin/tool", "", []string{"C:/bin/tool.com", "C:/bin/tool.exe", "C:/bin/tool.bat", "C:/bin/tool.cmd"}},
		{"C:/bin/tool", ".PS1;;EXE", []string{"C:/bin/tool.ps1", "C:/bin/tool.exe"}},
		{"C:/bin/tool.exe", ".EXE", []string{"C:/bin/tool.exe", "C:/bin/tool.exe.exe"}},
		{`C:\my.dir\tool`, ".EXE", []string{`C:\my.dir\tool.exe`}},
	}
	for _, c := range cases {
		t.Run(c.p+" "+c.pathext, func(t *testing.T) {
			if got := candidates(c.p, c.pathext, true); !slices.Equal(got, c.want) {
				t.Fatalf("candidates = %q, want %q", got, c.want)
			}
		})
	}
	t.Run("unix", func(t *testing.T) {
		if got := candidates("/bin/tool", ".EXE", false); !slices.Equal(got, []string{"/bin/tool"}) {
			t.Fatalf("candidates = %q", got)
		}
	})
}

func TestIsPath_DriveAndBackslash(t *testing.T) {
	cases := []struct {
		name          string
		windows, unix bool
	}{
		{"tool", false, false},
		{"./tool", true, true},
		{`bin\tool`, true, false},
		{"C:tool", true, false},
		{`c:\bin\tool.exe`, true, false},
		{`\\server\share\tool.exe`, true, false},
		{"1:tool", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := isPath(c.name, true); got != c.windows {
				t.Fatalf("isPath(%q, windows) = %v, want %v", c.name, got, c.windows)
			}
			if got := isPath(c.name, false); got != c.unix {
				t.Fatalf("isPath(%q, unix) = %v, want %v", c.name, got, c.unix)
			}
		})
	}
}

func TestLookPath_WindowsRules(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// Windows runs by extension: no permission bit is set on any of them.
	for _, name := range []string{"tool.exe", "tool.bat", "script", "app.py"} {
		if err := os.WriteFile(filepath.Join(bin, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, pathext, want string
		err                 error
	}{
		{"tool", ".COM;.EXE;.BAT", filepath.Join(bin, "tool.exe"), nil},
		{"tool", ".BAT;.EXE", filepath.Join(bin, "tool.bat"), nil},
		{"tool.bat", ".EXE", filepath.Join(bin, "tool.bat"), nil},
		{"app.py", ".EXE", filepath.Join(bin, "app.py"), nil},
		{"script", ".EXE;.BAT", "", ErrNotInPath},
		{"missing", "", "", ErrNotInPath},
	}
	for _, c := range cases {
		t.Run(c.name+" "+c.pathext, func(t *testing.T) {
			got, err := lookPath(c.name, dir, "/nonexistent"+string(filepath.ListSeparator)+"bin", c.pathext, true)
			if got != c.want || !errors.Is(err, c.err) {
				t.Fatalf("lookPath = %q, %v; want %q, %v", got, err, c.want, c.err)
			}
		})
	}
	t.Run("a path is tried with PATHEXT too", func(t *testing.T) {
		got, err := lookPath("./bin/tool", dir, "", ".EXE", true)
		if err != nil || got != filepath.Join(bin, "tool.exe") {
			t.Fatalf("lookPath = %q, %v", got, err)
		}
	})
	t.Run("a path that is not there says so", func(t *testing.T) {
		if _, err := lookPath("./bin/script", dir, "", ".EXE", true); err == nil || err.Error() != "no such file" {
			t.Fatalf("lookPath = %v, want no such file", err)
		}
	})
}
