package session

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/procenv"
	"github.com/agentty/agentty/internal/record"
)

// StartOptions describes a program to start. Exactly one of Command (run by
// /bin/sh -c) and Argv (executed directly) is set.
type StartOptions struct {
	Command string
	Argv    []string
	Mode    record.Mode // "" means PTY
	// MergeStderr (pipe mode) sends stderr into the stdout pipe: exact
	// relative order, no separation.
	MergeStderr bool
	Cwd         string
	Env         map[string]string
	// Base is the environment a local program begins from, under Env and
	// agentty's defaults (nil: agentty's own; a daemon passes each
	// client's, as a standalone serve's own is its client's).
	Base map[string]string
	Rows int // 0 means DefaultRows
	Cols int // 0 means DefaultCols
	Name string
	// Host runs the program on another machine over SSH (user@host[:port]
	// or an ssh config alias); "" runs it here.
	Host string
	// AcceptNewHostKey trusts and records an unknown host key (remote only).
	AcceptNewHostKey bool
	// Contain tightens the configured limits and sandbox for this session
	// (local only; nil: the configuration's).
	Contain *contain.Profile
	// SandboxRead are directories agentty's own integration makes the
	// program read (a shell's rc and command files), added to a listed
	// sandbox's readable paths without counting as the call's request.
	SandboxRead []string
}

// Default terminal size: wide enough that agents rarely see wrapped lines.
const (
	DefaultRows = 40
	DefaultCols = 120
)

// plainWord is a command's first word that the shell would look up in PATH
// as is (no quoting, expansion or assignment), so it can be checked up front.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./+-]+$`)

// shellWords are builtins and keywords: the shell runs them without PATH.
var shellWords = []string{"!", ".", ":", "[", "alias", "bg", "break", "case", "cd", "command",
	"continue", "eval", "exec", "exit", "export", "false", "fc", "fg", "for", "getopts", "hash",
	"if", "jobs", "kill", "local", "printf", "pwd", "read", "readonly", "return", "set", "shift",
	"source", "test", "times", "trap", "true", "type", "ulimit", "umask", "unalias", "unset",
	"until", "wait", "while", "echo", "{", "(", "time"}

// checkOptions validates what local and remote starts share and fills in
// defaults (mode pty, the default terminal size).
func checkOptions(o *StartOptions) error {
	if (o.Command == "") == (len(o.Argv) == 0) {
		return fmt.Errorf("%w: give exactly one of command (a shell command line) or argv (program and arguments)", ErrBadArgs)
	}
	switch o.Mode {
	case "":
		o.Mode = record.ModePTY
	case record.ModePTY, record.ModePipe:
	default:
		return fmt.Errorf("%w: mode must be \"pty\" or \"pipe\", not %s", ErrBadArgs, excerpt.Q(string(o.Mode)))
	}
	if o.Rows == 0 {
		o.Rows = DefaultRows
	}
	if o.Cols == 0 {
		o.Cols = DefaultCols
	}
	if err := checkSize(o.Rows, o.Cols); err != nil {
		return err
	}
	if o.MergeStderr && o.Mode != record.ModePipe {
		return fmt.Errorf("%w: merge_stderr applies to mode=pipe (a PTY already merges them)", ErrBadArgs)
	}
	return nil
}

// resolve turns options into a backend spec, checking what can be checked
// before anything runs so the agent gets a clear error instead of exit 127.
func resolve(o *StartOptions, marker string) (backend.Spec, error) {
	var spec backend.Spec
	if err := checkOptions(o); err != nil {
		return spec, err
	}
	dir, err := resolveCwd(o.Cwd)
	if err != nil {
		return spec, err
	}
	o.Cwd = dir
	spec.Dir, spec.Rows, spec.Cols, spec.MergeStderr = dir, o.Rows, o.Cols, o.MergeStderr
	spec.Env, spec.Marker = childEnv(o, marker), marker
	path := procenv.Get(spec.Env, "PATH")
	if o.Command != "" {
		spec.Path, spec.Argv = "/bin/sh", []string{"/bin/sh", "-c", o.Command}
		first := firstWord(o.Command)
		if first != "" && plainWord.MatchString(first) && !slices.Contains(shellWords, first) && !strings.Contains(first, "=") {
			if _, err := lookPath(first, dir, path); err != nil {
				return spec, err
			}
		}
		return spec, nil
	}
	spec.Argv = slices.Clone(o.Argv)
	if spec.Path, err = lookPath(o.Argv[0], dir, path); err != nil {
		return spec, err
	}
	return spec, nil
}

func firstWord(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func resolveCwd(cwd string) (string, error) {
	if cwd == "" {
		return os.Getwd()
	}
	if cwd == "~" || strings.HasPrefix(cwd, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%w: cannot expand ~: %v", ErrBadCwd, err)
		}
		cwd = filepath.Join(home, cwd[1:])
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadCwd, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%w: %s does not exist; pass an existing directory", ErrBadCwd, excerpt.Q(cwd))
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: %s is not a directory", ErrBadCwd, excerpt.Q(cwd))
	}
	return abs, nil
}

// lookPath finds name with procenv.LookPath and says what to do when it
// cannot.
func lookPath(name, dir, path string) (string, error) {
	p, err := procenv.LookPath(name, dir, path)
	switch {
	case errors.Is(err, procenv.ErrNotInPath):
		return "", fmt.Errorf("%w: %s is not in PATH; check the spelling or pass a full path", ErrCommandNotFound, excerpt.Q(name))
	case err != nil:
		return "", fmt.Errorf("%w: %s: %v", ErrCommandNotFound, excerpt.Q(name), err)
	}
	return p, nil
}

// childEnv builds the child's environment: agentty's own, then
// non-interactive defaults, then the caller's overrides, then the marker
// that lets agentty find every descendant later.
func childEnv(o *StartOptions, marker string) []string {
	env := procenv.Current()
	if o.Base != nil {
		env = maps.Clone(o.Base)
	}
	procenv.Set(env, "PAGER", "cat")
	procenv.Set(env, "GIT_PAGER", "cat")
	if o.Mode == record.ModePTY {
		procenv.Set(env, "TERM", "xterm-256color")
	} else {
		procenv.Set(env, "TERM", "dumb")
		// Without a terminal Python block-buffers stdout, which hides a
		// REPL's replies; agents expect to see output as it is printed.
		procenv.Set(env, "PYTHONUNBUFFERED", "1")
	}
	procenv.Delete(env, "COLUMNS")
	procenv.Delete(env, "LINES")
	for k, v := range o.Env {
		procenv.Set(env, k, v)
	}
	k, v, _ := strings.Cut(marker, "=")
	procenv.Set(env, k, v)
	return procenv.List(env)
}
