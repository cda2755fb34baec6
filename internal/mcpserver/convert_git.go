package mcpserver

import "github.com/agentty/agentty/internal/gitparse"

// wireParsed converts a parse to its wire form.
func wireParsed(p gitparse.Parsed) *Parsed {
	return &Parsed{Kind: p.Kind, Data: wireGitData(p.Data), Summary: p.Summary}
}

// wireGitData converts gitparse's data types; maps and string lists are
// already plain.
func wireGitData(d any) any {
	switch v := d.(type) {
	case []gitparse.Commit:
		return convert(v, func(c gitparse.Commit) GitCommit { return GitCommit(c) })
	case []gitparse.BranchEntry:
		return convert(v, func(b gitparse.BranchEntry) GitBranchEntry { return GitBranchEntry(b) })
	case []gitparse.NameStatus:
		return convert(v, func(n gitparse.NameStatus) GitNameStatus { return GitNameStatus(n) })
	case []gitparse.Remote:
		return convert(v, func(r gitparse.Remote) GitRemote { return GitRemote(r) })
	case gitparse.DiffStat:
		return GitDiffStat{Files: convert(v.Files, func(f gitparse.StatFile) GitStatFile { return GitStatFile(f) }),
			FilesChanged: v.FilesChanged, Insertions: v.Insertions, Deletions: v.Deletions}
	case gitparse.Which:
		return Which(v)
	case gitparse.Status:
		fs := func(f gitparse.FileStatus) GitFileStatus { return GitFileStatus(f) }
		st := GitStatus{Staged: convert(v.Staged, fs), Modified: convert(v.Modified, fs), Untracked: v.Untracked,
			Ignored: v.Ignored, Conflicted: convert(v.Conflicted, fs), Clean: v.Clean}
		if v.Branch != nil {
			b := GitBranch(*v.Branch)
			st.Branch = &b
		}
		return st
	}
	return d
}

// convert maps a slice, keeping nil nil (it is null on the wire, [] is not).
func convert[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, a := range in {
		out[i] = f(a)
	}
	return out
}
