package procenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotInPath means a bare name was found in no PATH directory.
var ErrNotInPath = errors.New("not in PATH")

// LookPath finds name as execve callers do: a name with a slash is a path
// (relative to dir); anything else is searched in path, whose relative
// entries are relative to dir. On Windows a backslash or a drive letter
// makes a path too, and a name is tried with each extension of PATHEXT
// (see candidates). A bare name found nowhere gives ErrNotInPath; a path
// that cannot run says why.
func LookPath(name, dir, path string) (string, error) {
	return lookPath(name, dir, path, os.Getenv("PATHEXT"), foldNames)
}

// lookPath is LookPath for Windows's rules when windows is set.
func lookPath(name, dir, path, pathext string, windows bool) (string, error) {
	if isPath(name, windows) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		var first error
		for _, c := range candidates(p, pathext, windows) {
			err := executable(c, windows)
			if err == nil {
				return c, nil
			}
			if first == nil {
				first = err
			}
		}
		return "", first
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		for _, c := range candidates(filepath.Join(d, name), pathext, windows) {
			if executable(c, windows) == nil {
				return c, nil
			}
		}
	}
	return "", ErrNotInPath
}

// isPath reports whether name is a path rather than a name to search:
// it holds a slash (on Windows also a backslash, or starts with a drive
// letter, as C:tool does).
func isPath(name string, windows bool) bool {
	if strings.Contains(name, "/") {
		return true
	}
	return windows && (strings.Contains(name, `\`) || hasDrive(name))
}

// hasDrive reports whether p starts with a drive letter and a colon.
func hasDrive(p string) bool {
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// defaultPATHEXT is what cmd.exe uses when PATHEXT is unset.
const defaultPATHEXT = ".COM;.EXE;.BAT;.CMD"

// candidates are the files p may name, in the order Windows's search
// tries them (as cmd.exe and Go's exec.LookPath do): p itself when it has
// an extension, then p with each extension of PATHEXT in its order. Off
// Windows p is the only one.
func candidates(p, pathext string, windows bool) []string {
	if !windows {
		return []string{p}
	}
	if pathext == "" {
		pathext = defaultPATHEXT
	}
	var out []string
	if strings.Contains(filepath.Base(strings.ReplaceAll(p, `\`, "/")), ".") {
		out = append(out, p)
	}
	for _, e := range strings.Split(pathext, ";") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		out = append(out, p+strings.ToLower(e))
	}
	return out
}

// Executable reports why p cannot be executed, or nil.
func Executable(p string) error { return executable(p, foldNames) }

// executable: on Windows no permission bit says what runs (the extension
// does, and candidates chose it), so a file that exists does.
func executable(p string, windows bool) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("no such file")
	}
	if fi.IsDir() {
		return fmt.Errorf("is a directory")
	}
	if !windows && fi.Mode()&0o111 == 0 {
		return fmt.Errorf("not executable (permission bits %v)", fi.Mode().Perm())
	}
	return nil
}
