package runner

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/procenv"
	"github.com/agentty/agentty/internal/sigs"
)

// nonInteractive keeps programs from stopping for a pager or a credential
// prompt with nobody to answer; the caller's env overrides it.
var nonInteractive = map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "TERM": "dumb"}

// buildEnv is base (nil: the server's environment), the non-interactive
// defaults, the caller's variables, then the marker (KEY=VALUE) that lets
// agentty find the run's processes.
func buildEnv(base, extra map[string]string, marker string) []string {
	env := procenv.Current()
	if base != nil {
		env = maps.Clone(base)
	}
	for k, v := range nonInteractive {
		procenv.Set(env, k, v)
	}
	for k, v := range extra {
		procenv.Set(env, k, v)
	}
	if k, v, ok := strings.Cut(marker, "="); ok {
		procenv.Set(env, k, v)
	}
	return procenv.List(env)
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
		return "", fmt.Errorf("%w: cwd %s: %v", ErrBadArgs, excerpt.Q(dir), err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%w: cwd %s is not an existing directory", ErrBadArgs, excerpt.Q(dir))
	}
	return abs, nil
}

// lookPath finds name with procenv.LookPath, with run_command's advice.
func lookPath(name, dir, path string) (string, error) {
	p, err := procenv.LookPath(name, dir, path)
	switch {
	case errors.Is(err, procenv.ErrNotInPath):
		return "", fmt.Errorf("%w: %s is not in PATH; run_command runs programs, not shell builtins (cd, export, ...): use exec_command in a shell for those", ErrNotFound, excerpt.Q(name))
	case err != nil:
		return "", fmt.Errorf("%w: %s is not an executable file (%v)", ErrNotFound, excerpt.Q(name), err)
	}
	return p, nil
}

func signalName(s syscall.Signal) string {
	if n := sigs.Name(s); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}
