// Package procenv builds what a child process starts with: its environment
// (agentty's own, layered with defaults, the caller's variables and the
// session marker) and the executable a name resolves to, the way execve
// callers search PATH. Sessions and one-shot runs share it so both find
// and describe programs the same way.
package procenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNotInPath means a bare name was found in no PATH directory.
var ErrNotInPath = errors.New("not in PATH")

// Current returns this process's environment as a map, for layering.
func Current() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// List renders env as KEY=VALUE entries sorted by key, so a child's
// environment is the same for the same inputs.
func List(env map[string]string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// Get returns key's value in a KEY=VALUE list, "" when absent.
func Get(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// LookPath finds name as execve callers do: a name with a slash is a path
// (relative to dir); anything else is searched in path, whose relative
// entries are relative to dir. A bare name found nowhere gives ErrNotInPath;
// a path that cannot run says why.
func LookPath(name, dir, path string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := Executable(p); err != nil {
			return "", err
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, name); Executable(p) == nil {
			return p, nil
		}
	}
	return "", ErrNotInPath
}

// Executable reports why p cannot be executed, or nil.
func Executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("no such file")
	}
	if fi.IsDir() {
		return fmt.Errorf("is a directory")
	}
	if fi.Mode()&0o111 == 0 {
		return fmt.Errorf("not executable (permission bits %v)", fi.Mode().Perm())
	}
	return nil
}
