// Package gitparse turns the text output of common read-only git commands
// (and which) into structured data, so agents get fields instead of
// re-parsing text. Parse recognises a command by its argv; output of an
// unrecognised command signature is left alone.
package gitparse

import (
	"slices"
	"strings"
)

// Parsed is the structured form of one command's output.
type Parsed struct {
	Kind    string // which parser: git_status, git_log, git_branch, git_branch_vv, git_diff_name_only, git_diff_name_status, git_diff_stat, git_diff_shortstat, git_rev_parse, git_remote, git_ls_files, which
	Data    any
	Summary string // one line describing the data
}

type parser func(args []string, out string) (Parsed, bool)

// Parse parses stdout of argv when argv is a supported signature.
func Parse(argv []string, stdout string) (Parsed, bool) {
	if len(argv) == 0 {
		return Parsed{}, false
	}
	switch base(argv[0]) {
	case "which":
		return parseWhich(argv[1:], stdout)
	case "git":
	default:
		return Parsed{}, false
	}
	args := gitArgs(argv[1:])
	if len(args) == 0 {
		return Parsed{}, false
	}
	p, ok := map[string]parser{
		"status":    parseStatus,
		"log":       parseLog,
		"branch":    parseBranch,
		"diff":      parseDiff,
		"rev-parse": parseRevParse,
		"remote":    parseRemote,
		"ls-files":  parseLsFiles,
	}[args[0]]
	if !ok {
		return Parsed{}, false
	}
	return p(args[1:], stdout)
}

func base(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// gitArgs drops git's global options (-C dir, -c k=v, --no-pager, ...)
// before the subcommand.
func gitArgs(a []string) []string {
	for len(a) > 0 {
		switch {
		case a[0] == "-C" || a[0] == "-c" || a[0] == "--git-dir" || a[0] == "--work-tree":
			if len(a) < 2 {
				return nil
			}
			a = a[2:]
		case a[0] == "--no-pager" || a[0] == "-P" || a[0] == "--no-optional-locks" ||
			strings.HasPrefix(a[0], "--git-dir=") || strings.HasPrefix(a[0], "--work-tree="):
			a = a[1:]
		case strings.HasPrefix(a[0], "-"):
			return nil
		default:
			return a
		}
	}
	return nil
}

// only reports whether every flag in args is among allowed (plain words,
// such as revisions and paths, are always allowed).
func only(args []string, allowed ...string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "--" && !slices.Contains(allowed, a) {
			return false
		}
	}
	return true
}

func has(args []string, flags ...string) bool {
	for _, a := range args {
		if slices.Contains(flags, a) {
			return true
		}
	}
	return false
}

// lines splits output into lines without the trailing empty one.
func lines(out string) []string {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return []string{}
	}
	return strings.Split(out, "\n")
}
