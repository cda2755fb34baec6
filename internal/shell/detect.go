package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/procenv"
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

// kindOf maps a program name to its family. Windows names match without
// regard to case or ".exe", with either slash.
func kindOf(name string) (Kind, bool) {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	if l := strings.ToLower(base); strings.HasSuffix(l, ".exe") {
		base = l[:len(l)-len(".exe")]
		switch base {
		case "pwsh", "powershell":
			return PowerShell, true
		case "cmd":
			return Cmd, true
		}
	}
	switch base {
	case "bash":
		return Bash, true
	case "zsh":
		return Zsh, true
	case "sh", "dash", "ash", "ksh", "mksh", "posh":
		return Sh, true
	case "pwsh", "powershell":
		return PowerShell, true
	case "cmd":
		return Cmd, true
	}
	return "", false
}

// autoShells are tried in order when no shell is asked for and $SHELL
// names none agentty supports: on Windows PowerShell 7, Windows PowerShell,
// then cmd.exe (bash from Git for Windows only when asked for: its paths
// are not Windows paths).
func autoShells(goos string) []string {
	if goos == "windows" {
		return []string{"pwsh", "powershell", "cmd"}
	}
	return []string{"bash", "sh"}
}

// supported is how errors name the shells agentty can run.
func supported(goos string) string {
	if goos == "windows" {
		return "pwsh, powershell, cmd or bash (or a path to one of them)"
	}
	return "bash, zsh or sh (or a path to one of them)"
}

// Detect picks the shell to run: want is "" (auto: $SHELL if supported,
// else bash, else sh), a family name, or a path to a shell program. SHELL
// and PATH come from env (nil: agentty's own environment).
func Detect(want string, env map[string]string) (Kind, string, error) {
	getenv := os.Getenv
	if env != nil {
		getenv = func(k string) string { return env[k] }
	}
	lookPath := func(name string) (string, error) {
		if env == nil {
			return exec.LookPath(name)
		}
		return procenv.LookPath(name, "", env["PATH"])
	}
	if want == "" {
		if k, ok := kindOf(getenv("SHELL")); ok {
			if p, err := lookPath(getenv("SHELL")); err == nil {
				return k, p, nil
			}
		}
		names := autoShells(runtime.GOOS)
		for _, name := range names {
			if p, err := lookPath(name); err == nil {
				k, _ := kindOf(name)
				return k, p, nil
			}
		}
		return "", "", fmt.Errorf("%w: neither $SHELL, %s nor %s was found in PATH", ErrUnsupportedShell,
			strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	k, ok := kindOf(want)
	if !ok {
		return "", "", fmt.Errorf("%w: %s; use %s", ErrUnsupportedShell, excerpt.Q(want), supported(runtime.GOOS))
	}
	p, err := lookPath(want)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s is not installed (not in PATH): %v", ErrUnsupportedShell, excerpt.Q(want), err)
	}
	if !strings.ContainsAny(want, `/\`) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
	}
	return k, p, nil
}

// detectScript prints the remote shell to run when none was asked for:
// the login shell if agentty supports it, else bash, else sh.
const detectScript = `case ${SHELL##*/} in bash|zsh|sh|dash|ash|ksh|mksh|posh) command -v "$SHELL" && exit 0 ;; esac
command -v bash || command -v sh`

// detectRemote picks the shell for a remote host: want as for Detect,
// looked up on the remote (an empty want asks the remote, one round trip;
// a name is left to the remote's PATH).
func detectRemote(ctx context.Context, f remoteFiles, want string) (Kind, string, error) {
	if want != "" {
		k, ok := kindOf(want)
		if !ok {
			return "", "", fmt.Errorf("%w: %s; use %s", ErrUnsupportedShell, excerpt.Q(want), supported("linux"))
		}
		if k == PowerShell || k == Cmd {
			return "", "", fmt.Errorf("%w: %s on a remote host; remote shells are POSIX: use %s", ErrUnsupportedShell, excerpt.Q(want), supported("linux"))
		}
		return k, want, nil
	}
	out, err := f.r.Exec(ctx, f.host, f.accept, detectScript, nil, nil)
	if err != nil {
		return "", "", fmt.Errorf("%w: find a shell on %s: %v", ErrUnsupportedShell, f.host, err)
	}
	p := strings.TrimSpace(string(out))
	k, ok := kindOf(p)
	if !ok {
		return "", "", fmt.Errorf("%w: %s has no bash or sh in PATH (found %q)", ErrUnsupportedShell, f.host, p)
	}
	return k, p, nil
}
