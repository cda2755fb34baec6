package gitparse

import (
	"fmt"
	"strconv"
	"strings"
)

// Branch is the "## ..." line of a short status.
type Branch struct {
	Head     string
	Upstream string
	Ahead    int
	Behind   int
	Gone     bool // the upstream branch no longer exists
	NoCommit bool // a new repository without commits
	Detached bool
}

// FileStatus is one entry of a status.
type FileStatus struct {
	Path     string
	OrigPath string // source of a rename or copy
	Code     string // the two-letter XY code
	Status   string // added, modified, deleted, renamed, copied, type_changed, unmerged
}

// Status is git status in short or porcelain v1 form.
type Status struct {
	Branch     *Branch
	Staged     []FileStatus
	Modified   []FileStatus // changed in the work tree, not staged
	Untracked  []string
	Ignored    []string
	Conflicted []FileStatus
	Clean      bool
}

var statusWords = map[byte]string{'A': "added", 'M': "modified", 'D': "deleted", 'R': "renamed", 'C': "copied", 'T': "type_changed", 'U': "unmerged"}

var aheadBehind = lazyRE(`(ahead|behind) (\d+)`)

func parseStatus(args []string, out string) (Parsed, bool) {
	short := has(args, "--short", "-s", "--porcelain", "--porcelain=v1", "-sb", "-bs")
	if !short || !only(args, "--short", "-s", "--porcelain", "--porcelain=v1", "--branch", "-b", "-sb", "-bs", "--untracked-files=all", "-uall", "--untracked-files=normal", "--ignored", "--no-renames", "--renames") {
		return Parsed{}, false
	}
	st := Status{Staged: []FileStatus{}, Modified: []FileStatus{}, Untracked: []string{}, Conflicted: []FileStatus{}}
	for _, l := range lines(out) {
		if strings.HasPrefix(l, "## ") {
			st.Branch = parseBranchLine(l[3:])
			continue
		}
		if len(l) < 4 || l[2] != ' ' {
			return Parsed{}, false
		}
		x, y, path := l[0], l[1], unquote(l[3:])
		f := FileStatus{Path: path, Code: l[:2]}
		if from, to, ok := strings.Cut(l[3:], " -> "); ok {
			f.OrigPath, f.Path = unquote(from), unquote(to)
		}
		switch {
		case x == '?' && y == '?':
			st.Untracked = append(st.Untracked, path)
		case x == '!' && y == '!':
			st.Ignored = append(st.Ignored, path)
		case x == 'U' || y == 'U' || (x == 'A' && y == 'A') || (x == 'D' && y == 'D'):
			f.Status = "unmerged"
			st.Conflicted = append(st.Conflicted, f)
		default:
			if x != ' ' {
				g := f
				g.Status = statusWords[x]
				st.Staged = append(st.Staged, g)
			}
			if y != ' ' {
				g := f
				g.Status = statusWords[y]
				g.OrigPath = ""
				st.Modified = append(st.Modified, g)
			}
		}
	}
	st.Clean = len(st.Staged)+len(st.Modified)+len(st.Untracked)+len(st.Conflicted) == 0
	var b strings.Builder
	if st.Branch != nil {
		fmt.Fprintf(&b, "on %s", st.Branch.Head)
		if st.Branch.Upstream != "" {
			fmt.Fprintf(&b, " (upstream %s, ahead %d, behind %d)", st.Branch.Upstream, st.Branch.Ahead, st.Branch.Behind)
		}
		b.WriteString(": ")
	}
	if st.Clean {
		b.WriteString("clean")
	} else {
		fmt.Fprintf(&b, "%d staged, %d modified, %d untracked, %d conflicted", len(st.Staged), len(st.Modified), len(st.Untracked), len(st.Conflicted))
	}
	return Parsed{Kind: "git_status", Data: st, Summary: b.String()}, true
}

// parseBranchLine reads "main...origin/main [ahead 1, behind 2]",
// "No commits yet on main", "HEAD (no branch)".
func parseBranchLine(s string) *Branch {
	b := &Branch{}
	if rest, ok := strings.CutPrefix(s, "No commits yet on "); ok {
		b.Head, b.NoCommit = rest, true
		return b
	}
	if rest, ok := strings.CutPrefix(s, "Initial commit on "); ok {
		b.Head, b.NoCommit = rest, true
		return b
	}
	if strings.HasPrefix(s, "HEAD (no branch)") {
		b.Head, b.Detached = "HEAD", true
		return b
	}
	info := ""
	if i := strings.Index(s, " ["); i >= 0 {
		s, info = s[:i], s[i+2:]
	}
	b.Head = s
	if h, up, ok := strings.Cut(s, "..."); ok {
		b.Head, b.Upstream = h, up
	}
	b.Gone = strings.HasPrefix(info, "gone")
	for _, m := range aheadBehind().FindAllStringSubmatch(info, -1) {
		n, _ := strconv.Atoi(m[2])
		if m[1] == "ahead" {
			b.Ahead = n
		} else {
			b.Behind = n
		}
	}
	return b
}

// unquote undoes git's C-style quoting of unusual paths.
func unquote(p string) string {
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}
