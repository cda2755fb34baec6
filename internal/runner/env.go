package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// nonInteractive keeps programs from stopping for a pager or a credential
// prompt with nobody to answer; the caller's env overrides it.
var nonInteractive = map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "TERM": "dumb"}

// buildEnv is the server's environment, the non-interactive defaults, the
// caller's variables, then the marker (KEY=VALUE) that lets agentty find
// the run's processes.
func buildEnv(extra map[string]string, marker string) []string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for k, v := range nonInteractive {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	if k, v, ok := strings.Cut(marker, "="); ok {
		env[k] = v
	}
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

func envValue(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// envMarker is the marker entry of env, for finding the run's processes.
func envMarker(env []string) string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "AGENTTY_SESSION=") {
			return kv
		}
	}
	return ""
}

func resolveDir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%w: cwd %q: %v", ErrBadArgs, dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%w: cwd %q is not an existing directory", ErrBadArgs, dir)
	}
	return abs, nil
}

// lookPath finds name as execve callers do, with the run's PATH and cwd.
func lookPath(name, dir, path string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if runnable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%w: %s is not an executable file", ErrNotFound, name)
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, name); runnable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %q is not in PATH; run_command runs programs, not shell builtins (cd, export, ...): use exec_command in a shell for those", ErrNotFound, name)
}

func runnable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func unixSignalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}
