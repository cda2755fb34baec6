package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// entry is one executable named in allow, deny or confirm.
type entry struct {
	raw  string
	kind entryKind
}

type entryKind int

const (
	bareName     entryKind = iota // "git"
	relativePath                  // "./build.sh": exactly this word
	absolutePath                  // "/usr/bin/python3"
)

func entries(list string, names []string) ([]entry, error) {
	out := make([]entry, 0, len(names))
	for i, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("policy: %s[%d] is empty", list, i)
		case filepath.IsAbs(n):
			out = append(out, entry{raw: filepath.Clean(n), kind: absolutePath})
		case strings.Contains(n, "/"):
			out = append(out, entry{raw: n, kind: relativePath})
		default:
			out = append(out, entry{raw: n, kind: bareName})
		}
	}
	return out, nil
}

// exe is a command name as the shell would run it.
type exe struct {
	word string // as written, quotes removed
	path string // absolute path it runs, "" when PATH has no such program
	base string
}

func (p *Policy) resolve(word, cwd string) exe {
	e := exe{word: word, base: filepath.Base(word)}
	if strings.Contains(word, "/") {
		e.path = p.absPath(word, cwd)
		return e
	}
	if lp, err := p.lookPath(word); err == nil {
		e.path = lp
	}
	return e
}

// lookPath finds name in the policy's PATH.
func (p *Policy) lookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(p.pathEnv) {
		if !filepath.IsAbs(dir) {
			continue // a relative PATH entry depends on the cwd: never trusted
		}
		path := filepath.Join(dir, name)
		if st, err := os.Stat(path); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return path, nil
		}
	}
	return "", exec.ErrNotFound
}

// matches reports whether the entry names e. Deny entries match bare names
// at any path (strict) — the others only in PATH directories.
func (en entry) matches(p *Policy, e exe, isDeny bool) bool {
	switch en.kind {
	case bareName:
		if e.word == en.raw {
			return true
		}
		if e.base != en.raw || !strings.Contains(e.word, "/") {
			return false
		}
		return isDeny || p.inPathDir(e)
	case relativePath:
		if e.word == en.raw {
			return true
		}
		return isDeny && e.base == filepath.Base(en.raw)
	default:
		if e.word == en.raw || e.path == en.raw {
			return true
		}
		if isDeny && e.base == filepath.Base(en.raw) {
			return true
		}
		return e.path != "" && sameFile(e.path, en.raw)
	}
}

// inPathDir reports whether e, named by a path, lies in one of the
// policy's PATH directories, where a bare allow entry matches it.
func (p *Policy) inPathDir(e exe) bool {
	dir := filepath.Dir(e.path)
	dirs := p.pathDirs()
	return slices.Contains(dirs, dir) || slices.Contains(dirs, realPath(dir))
}

// allowHint says which allow entry would admit e, named by a path: the
// program may come from a default the person never wrote (open_shell runs
// $SHELL, such as /usr/bin/bash), so the refusal names what to add.
func allowHint(e exe, inPath bool) string {
	abs := e.path
	if abs == "" {
		abs = e.word
	}
	if inPath {
		return fmt.Sprintf("; to allow it, add %q (any %s in a PATH directory) or %q to allow", e.base, e.base, abs)
	}
	return fmt.Sprintf("; to allow it, add %q to allow (a bare %q matches only files in PATH directories)", abs, e.base)
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

func (p *Policy) matchAny(list []entry, e exe, isDeny bool) (entry, bool) {
	for _, en := range list {
		if en.matches(p, e, isDeny) {
			return en, true
		}
	}
	return entry{}, false
}

// checkExe applies deny, allow and secure to one executable.
func (p *Policy) checkExe(e exe, via string) Decision {
	subject := e.word
	if via != "" {
		via = " (run via " + via + ")"
	}
	if en, ok := p.matchAny(p.deny, e, true); ok {
		return refuse(RuleDeny, subject, "%s%s is on the deny list (entry %q)", e.word, via, en.raw)
	}
	if len(p.allow) > 0 {
		if _, ok := p.matchAny(p.allow, e, false); !ok {
			names := make([]string, len(p.allow))
			for i, en := range p.allow {
				names[i] = en.raw
			}
			hint := ""
			if strings.Contains(e.word, "/") {
				hint = allowHint(e, p.inPathDir(e))
			}
			return refuse(RuleAllow, subject, "%s%s is not on the allow list %v%s", e.word, via, names, hint)
		}
	}
	if p.rules.Secure && isShell(e.base) {
		return refuse(RuleSecure, subject, "secure mode runs no shell; start programs with argv")
	}
	return allowed
}

// shells are programs whose -c argument is a script to check.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "rbash": true}

// foreignShells have a syntax the POSIX/bash parser does not read.
var foreignShells = map[string]bool{"fish": true, "csh": true, "tcsh": true, "nu": true, "xonsh": true, "elvish": true, "pwsh": true}

func isShell(base string) bool { return shells[base] || foreignShells[base] }

// IsInteractiveShell reports whether argv runs a shell that takes its
// commands from its input (no -c, no script file, or -s/-i): what is typed
// into it is a command line.
func IsInteractiveShell(argv []string) bool {
	if len(argv) == 0 || !isShell(filepath.Base(strings.TrimPrefix(argv[0], "-"))) {
		return false
	}
	for _, a := range argv[1:] {
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if strings.Contains(a, "c") {
				return false
			}
			if strings.ContainsAny(a, "is") {
				return true
			}
		default:
			return false // a script file
		}
	}
	return true
}

// IsShell reports whether a program name (or path) is a shell whose input
// is a command line: input typed at its prompt is checked like a script.
func IsShell(name string) bool { return isShell(filepath.Base(name)) }
