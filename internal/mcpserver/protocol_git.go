package mcpserver

// Wire types of run_command's parsed git and which output: what agents send and read.
// Engine types never carry json tags; handlers convert (convert_*.go).

// Parsed is run_command's structured stdout: the wire form of
// gitparse.Parsed, whose Data is converted to the Git* types below.
type Parsed struct {
	Kind    string `json:"kind" jsonschema:"which parser: git_status, git_log, git_branch, git_branch_vv, git_diff_name_only, git_diff_name_status, git_diff_stat, git_diff_shortstat, git_rev_parse, git_remote, git_ls_files, which"`
	Data    any    `json:"data"`
	Summary string `json:"summary" jsonschema:"one line describing the data"`
}

// GitCommit is one git log --oneline line.
type GitCommit struct {
	Hash    string `json:"hash"`
	Refs    string `json:"refs,omitempty"` // decorations such as HEAD -> main, tag: v1
	Subject string `json:"subject"`
}

// GitBranchEntry is one line of git branch (-v, -vv, -a).
type GitBranchEntry struct {
	Name     string `json:"name"`
	Current  bool   `json:"current"`
	Remote   bool   `json:"remote,omitempty"`
	Worktree bool   `json:"worktree,omitempty"` // checked out in another worktree (+)
	Target   string `json:"target,omitempty"`   // symbolic refs such as origin/HEAD -> origin/main
	Hash     string `json:"hash,omitempty"`
	Upstream string `json:"upstream,omitempty"`
	Ahead    int    `json:"ahead,omitempty"`
	Behind   int    `json:"behind,omitempty"`
	Gone     bool   `json:"gone,omitempty"`
	Subject  string `json:"subject,omitempty"`
}

// GitDiffStat is git diff --stat or --shortstat.
type GitDiffStat struct {
	Files        []GitStatFile `json:"files,omitempty"`
	FilesChanged int           `json:"files_changed"`
	Insertions   int           `json:"insertions"`
	Deletions    int           `json:"deletions"`
}

// GitStatFile is one file of git diff --stat.
type GitStatFile struct {
	Path    string `json:"path"`
	Changes int    `json:"changes"` // changed lines; 0 for binary files
	Binary  bool   `json:"binary,omitempty"`
}

// GitNameStatus is one line of git diff --name-status.
type GitNameStatus struct {
	Status   string `json:"status"`          // A, M, D, R, C, T, U
	Score    int    `json:"score,omitempty"` // similarity of a rename or copy, percent
	Path     string `json:"path"`
	OrigPath string `json:"orig_path,omitempty"`
}

// GitRemote is one remote of git remote -v.
type GitRemote struct {
	Name  string `json:"name"`
	Fetch string `json:"fetch,omitempty"`
	Push  string `json:"push,omitempty"`
}

// Which is the result of which.
type Which struct {
	Paths []string `json:"paths"`
	Found bool     `json:"found"`
}

// GitBranch is the "## ..." line of a short status.
type GitBranch struct {
	Head     string `json:"head"`
	Upstream string `json:"upstream,omitempty"`
	Ahead    int    `json:"ahead"`
	Behind   int    `json:"behind"`
	Gone     bool   `json:"gone,omitempty"`       // the upstream branch no longer exists
	NoCommit bool   `json:"no_commits,omitempty"` // a new repository without commits
	Detached bool   `json:"detached,omitempty"`
}

// GitFileStatus is one entry of a status.
type GitFileStatus struct {
	Path     string `json:"path"`
	OrigPath string `json:"orig_path,omitempty"` // source of a rename or copy
	Code     string `json:"code"`                // the two-letter XY code
	Status   string `json:"status"`              // added, modified, deleted, renamed, copied, type_changed, unmerged
}

// GitStatus is git status in short or porcelain v1 form.
type GitStatus struct {
	Branch     *GitBranch      `json:"branch,omitempty"`
	Staged     []GitFileStatus `json:"staged"`
	Modified   []GitFileStatus `json:"modified"` // changed in the work tree, not staged
	Untracked  []string        `json:"untracked"`
	Ignored    []string        `json:"ignored,omitempty"`
	Conflicted []GitFileStatus `json:"conflicted"`
	Clean      bool            `json:"clean"`
}
