package shell

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Kind is a shell family with its own integration script.
type Kind string

// Supported shells.
const (
	Bash Kind = "bash"
	Zsh  Kind = "zsh"
	Sh   Kind = "sh" // POSIX sh: dash, busybox ash, or bash/ksh as sh
)

// ErrUnsupportedShell is returned for a shell agentty has no integration for.
var ErrUnsupportedShell = errors.New("unsupported shell")

// kindOf maps a program name to its family.
func kindOf(name string) (Kind, bool) {
	switch filepath.Base(name) {
	case "bash":
		return Bash, true
	case "zsh":
		return Zsh, true
	case "sh", "dash", "ash", "ksh", "mksh", "posh":
		return Sh, true
	}
	return "", false
}

// Detect picks the shell to run: want is "" (auto: $SHELL if supported,
// else bash, else sh), a family name, or a path to a shell program.
func Detect(want string) (Kind, string, error) {
	if want == "" {
		if k, ok := kindOf(os.Getenv("SHELL")); ok {
			if p, err := exec.LookPath(os.Getenv("SHELL")); err == nil {
				return k, p, nil
			}
		}
		for _, name := range []string{"bash", "sh"} {
			if p, err := exec.LookPath(name); err == nil {
				k, _ := kindOf(name)
				return k, p, nil
			}
		}
		return "", "", fmt.Errorf("%w: neither $SHELL, bash nor sh was found in PATH", ErrUnsupportedShell)
	}
	k, ok := kindOf(want)
	if !ok {
		return "", "", fmt.Errorf("%w: %q; use bash, zsh or sh (or a path to one of them)", ErrUnsupportedShell, want)
	}
	p, err := exec.LookPath(want)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s is not installed (not in PATH): %v", ErrUnsupportedShell, want, err)
	}
	if !strings.Contains(want, "/") {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
	}
	return k, p, nil
}
