package gitparse

import (
	"fmt"
	"strconv"
	"strings"
)

// Commit is one line of git log --oneline.
type Commit struct {
	Hash    string
	Refs    string // decorations such as HEAD -> main, tag: v1
	Subject string
}

var decorated = lazyRE(`^\(([^)]*)\) (.*)$`)

func parseLog(args []string, out string) (Parsed, bool) {
	if !has(args, "--oneline") {
		return Parsed{}, false
	}
	// Allowed: --oneline, -n N, -N, --max-count=N, --no-decorate, --decorate, revisions.
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--oneline" || a == "--no-decorate" || a == "--decorate" || a == "--no-color" || a == "--":
		case a == "-n":
			i++
		case strings.HasPrefix(a, "--max-count=") || (len(a) > 1 && a[0] == '-' && isDigits(a[1:])) || (strings.HasPrefix(a, "-n") && isDigits(a[2:])):
		case strings.HasPrefix(a, "-"):
			return Parsed{}, false
		}
	}
	commits := []Commit{}
	for _, l := range lines(out) {
		h, rest, _ := strings.Cut(l, " ")
		if !isHex(h) {
			return Parsed{}, false
		}
		c := Commit{Hash: h, Subject: rest}
		if m := decorated().FindStringSubmatch(rest); m != nil {
			c.Refs, c.Subject = m[1], m[2]
		}
		commits = append(commits, c)
	}
	sum := fmt.Sprintf("%d commits", len(commits))
	if len(commits) > 0 {
		sum += fmt.Sprintf(", newest %s %s", commits[0].Hash, commits[0].Subject)
	}
	return Parsed{Kind: "git_log", Data: commits, Summary: sum}, true
}

// BranchEntry is one line of git branch.
type BranchEntry struct {
	Name     string
	Current  bool
	Remote   bool
	Worktree bool   // checked out in another worktree (+)
	Target   string // for symbolic refs such as origin/HEAD -> origin/main
	Hash     string
	Upstream string
	Ahead    int
	Behind   int
	Gone     bool
	Subject  string
}

var vvLine = lazyRE(`^(\S+)\s+([0-9a-f]{4,64})\s(?:\[([^\]]*)\] )?(.*)$`)

func parseBranch(args []string, out string) (Parsed, bool) {
	if has(args, "--show-current") {
		if len(args) != 1 {
			return Parsed{}, false
		}
		cur := strings.TrimSpace(out)
		return Parsed{Kind: "git_branch", Data: map[string]string{"current": cur}, Summary: "current branch " + cur}, true
	}
	verbose := has(args, "-vv", "-v")
	if !only(args, "-a", "--all", "-r", "--remotes", "-vv", "-v", "--no-color", "--list") {
		return Parsed{}, false
	}
	remotes := has(args, "-r", "--remotes")
	var list []BranchEntry
	current := ""
	for _, l := range lines(out) {
		if len(l) < 3 {
			return Parsed{}, false
		}
		e := BranchEntry{Current: l[0] == '*', Worktree: l[0] == '+'}
		rest := l[2:]
		if verbose {
			m := vvLine().FindStringSubmatch(rest)
			if m == nil {
				// "(HEAD detached at abc) abc subject" and symbolic refs
				// have no regular shape; keep the name only.
				e.Name = strings.Fields(rest)[0]
			} else {
				e.Name, e.Hash, e.Subject = m[1], m[2], m[4]
				if m[3] != "" {
					up, info, _ := strings.Cut(m[3], ": ")
					b := parseBranchLine("x [" + info + "]")
					e.Upstream, e.Ahead, e.Behind, e.Gone = up, b.Ahead, b.Behind, info == "gone"
				}
			}
		} else {
			e.Name = rest
			if n, t, ok := strings.Cut(rest, " -> "); ok {
				e.Name, e.Target = n, t
			}
		}
		e.Remote = remotes || strings.HasPrefix(e.Name, "remotes/")
		if e.Current {
			current = e.Name
		}
		list = append(list, e)
	}
	if list == nil {
		list = []BranchEntry{}
	}
	kind := "git_branch"
	if verbose {
		kind = "git_branch_vv"
	}
	return Parsed{Kind: kind, Data: list, Summary: fmt.Sprintf("%d branches, current %s", len(list), current)}, true
}

// DiffStat is git diff --stat / --shortstat.
type DiffStat struct {
	Files        []StatFile
	FilesChanged int
	Insertions   int
	Deletions    int
}

// StatFile is one file line of --stat.
type StatFile struct {
	Path    string
	Changes int // changed lines; for binary files 0
	Binary  bool
}

// NameStatus is one line of --name-status.
type NameStatus struct {
	Status   string // A, M, D, R, C, T, U
	Score    int    // similarity of a rename or copy, percent
	Path     string
	OrigPath string
}

var (
	shortstatRE = lazyRE(`(\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?`)
	statLine    = lazyRE(`^ (.*?)\s+\|\s+(?:(\d+)(?: [+-]*)?|Bin .*)$`)
)

var diffFlags = []string{"--cached", "--staged", "--no-color", "-M", "-C", "--no-renames", "--name-only", "--name-status", "--stat", "--shortstat"}

func parseDiff(args []string, out string) (Parsed, bool) {
	if !only(args, diffFlags...) {
		return Parsed{}, false
	}
	switch {
	case has(args, "--name-only"):
		files := lines(out)
		for i := range files {
			files[i] = unquote(files[i])
		}
		return Parsed{Kind: "git_diff_name_only", Data: files, Summary: fmt.Sprintf("%d files changed", len(files))}, true
	case has(args, "--name-status"):
		list := []NameStatus{}
		for _, l := range lines(out) {
			f := strings.Split(l, "\t")
			if len(f) < 2 || f[0] == "" {
				return Parsed{}, false
			}
			e := NameStatus{Status: f[0][:1], Path: unquote(f[len(f)-1])}
			e.Score, _ = strconv.Atoi(f[0][1:])
			if len(f) == 3 {
				e.OrigPath = unquote(f[1])
			}
			list = append(list, e)
		}
		return Parsed{Kind: "git_diff_name_status", Data: list, Summary: fmt.Sprintf("%d files changed", len(list))}, true
	case has(args, "--shortstat"):
		d := DiffStat{}
		fillTotals(&d, out)
		return Parsed{Kind: "git_diff_shortstat", Data: d, Summary: totals(d)}, true
	case has(args, "--stat"):
		d := DiffStat{Files: []StatFile{}}
		for _, l := range lines(out) {
			if m := statLine().FindStringSubmatch(l); m != nil {
				f := StatFile{Path: strings.TrimSpace(m[1])}
				if m[2] == "" {
					f.Binary = true
				} else {
					f.Changes, _ = strconv.Atoi(m[2])
				}
				d.Files = append(d.Files, f)
			}
		}
		fillTotals(&d, out)
		return Parsed{Kind: "git_diff_stat", Data: d, Summary: totals(d)}, true
	}
	return Parsed{}, false
}

func fillTotals(d *DiffStat, out string) {
	if m := shortstatRE().FindStringSubmatch(out); m != nil {
		d.FilesChanged, _ = strconv.Atoi(m[1])
		d.Insertions, _ = strconv.Atoi(m[2])
		d.Deletions, _ = strconv.Atoi(m[3])
	}
}

func totals(d DiffStat) string {
	return fmt.Sprintf("%d files changed, %d insertions(+), %d deletions(-)", d.FilesChanged, d.Insertions, d.Deletions)
}

func parseRevParse(args []string, out string) (Parsed, bool) {
	v := strings.TrimSpace(out)
	if v == "" || strings.Contains(v, "\n") {
		return Parsed{}, false
	}
	key := ""
	switch {
	case len(args) == 2 && args[0] == "--abbrev-ref":
		key = "ref"
	case len(args) == 1 && args[0] == "--show-toplevel":
		key = "toplevel"
	case len(args) == 1 && (args[0] == "--git-dir" || args[0] == "--absolute-git-dir"):
		key = "git_dir"
	case len(args) == 1 && args[0] == "--is-inside-work-tree":
		b := v == "true"
		return Parsed{Kind: "git_rev_parse", Data: map[string]bool{"inside_work_tree": b}, Summary: "inside work tree: " + v}, true
	case len(args) == 1 && !strings.HasPrefix(args[0], "-"), len(args) == 2 && args[0] == "--short", len(args) == 2 && args[0] == "--verify":
		if !isHex(v) {
			return Parsed{}, false
		}
		key = "hash"
	default:
		return Parsed{}, false
	}
	return Parsed{Kind: "git_rev_parse", Data: map[string]string{key: v}, Summary: key + " " + v}, true
}

// Remote is one remote with its fetch and push URLs.
type Remote struct {
	Name  string
	Fetch string
	Push  string
}

func parseRemote(args []string, out string) (Parsed, bool) {
	if len(args) != 1 || (args[0] != "-v" && args[0] != "--verbose") {
		return Parsed{}, false
	}
	var list []Remote
	idx := map[string]int{}
	for _, l := range lines(out) {
		f := strings.Fields(l)
		if len(f) != 3 {
			return Parsed{}, false
		}
		i, ok := idx[f[0]]
		if !ok {
			i = len(list)
			idx[f[0]] = i
			list = append(list, Remote{Name: f[0]})
		}
		switch f[2] {
		case "(fetch)":
			list[i].Fetch = f[1]
		case "(push)":
			list[i].Push = f[1]
		}
	}
	if list == nil {
		list = []Remote{}
	}
	names := make([]string, len(list))
	for i, r := range list {
		names[i] = r.Name
	}
	return Parsed{Kind: "git_remote", Data: list, Summary: fmt.Sprintf("%d remotes: %s", len(list), strings.Join(names, ", "))}, true
}

func parseLsFiles(args []string, out string) (Parsed, bool) {
	if !only(args, "--cached", "-c", "--others", "-o", "--exclude-standard", "--modified", "-m", "--deleted", "-d") {
		return Parsed{}, false
	}
	files := lines(out)
	for i := range files {
		files[i] = unquote(files[i])
	}
	return Parsed{Kind: "git_ls_files", Data: files, Summary: fmt.Sprintf("%d files", len(files))}, true
}

// Which is the result of which.
type Which struct {
	Paths []string
	Found bool
}

func parseWhich(args []string, out string) (Parsed, bool) {
	if len(args) == 0 || !only(args, "-a") {
		return Parsed{}, false
	}
	w := Which{Paths: lines(out)}
	w.Found = len(w.Paths) > 0
	sum := "not found"
	if w.Found {
		sum = strings.Join(w.Paths, ", ")
	}
	return Parsed{Kind: "which", Data: w, Summary: sum}, true
}

func isHex(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
