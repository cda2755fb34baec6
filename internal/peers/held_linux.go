//go:build linux

package peers

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentty/agentty/internal/cgroup"
	"github.com/agentty/agentty/internal/procfile"
)

// maxDepth bounds the walk up a peer's ancestors.
const maxDepth = 256

// Held names the held session pid belongs to and why it is held; why is
// "" when pid may use agentty's doors. In this order:
//
//   - its cgroup: below the server's sessions' parent it names the session
//     exactly (a sandboxed process cannot write cgroup.procs to leave);
//   - its ancestors up to a session's (or run's) root;
//   - an ancestor that is a child of the server but no root is an orphan
//     the server adopted (it is every session's subreaper): which session
//     it came from is unknown without a cgroup, so it is refused while the
//     server holds any contained session;
//   - a process more confined than the server, by no_new_privs or another
//     network namespace, is held by whatever put it there when it is the
//     server's own (by cgroup or ancestry) or descends from another agentty
//     server: a filesystem sandbox always sets no_new_privs and no_network
//     is a namespace of its own, so this catches the sandboxed sessions of
//     servers this one does not know (a standalone server's, a nested
//     one's), which are always descendants of theirs (their subreaper).
func (g *Guard) Held(pid int) Verdict {
	if g == nil || pid <= 0 {
		return Verdict{}
	}
	f := factsOf(pid)
	confined := f.noNewPrivs && !g.self.noNewPrivs || f.netNS != "" && f.netNS != g.self.netNS
	var id string
	mine, known, underAgentty := false, false, false
	if dir, err := cgroup.Of(pid); err == nil {
		if gid, why, ok := g.s.Group(dir); ok {
			if why != "" {
				return Verdict{Session: gid, Why: why}
			}
			id, mine, known = gid, true, true
		}
	}
	for cur, i := pid, 0; i < maxDepth && cur > 1 && cur != g.pid; i++ {
		if rid, why, ok := g.s.Root(cur); ok {
			if why != "" {
				return Verdict{Session: rid, Why: why}
			}
			id, mine = rid, true
			break
		}
		if confined && !underAgentty && cur != pid {
			underAgentty = g.runsAgentty(cur)
		}
		parent := parentOf(cur)
		if parent == g.pid {
			mine = true
			if !known {
				if cid, why := g.s.Contained(); why != "" {
					return Verdict{Session: cid, Why: why, Orphan: true}
				}
			}
			break
		}
		cur = parent
	}
	if !mine && !underAgentty {
		return Verdict{}
	}
	switch {
	case f.noNewPrivs && !g.self.noNewPrivs:
		return Verdict{Session: id, Why: "no_new_privs"}
	case f.netNS != "" && f.netNS != g.self.netNS:
		return Verdict{Session: id, Why: "network namespace"}
	}
	return Verdict{}
}

// runsAgentty reports whether pid runs agentty's executable (this one, or
// any named agentty): another agentty server, which is the subreaper of
// everything its sessions start.
func (g *Guard) runsAgentty(pid int) bool {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return false
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	return exe == g.exe || filepath.Base(exe) == "agentty"
}

// processFacts are what a process cannot undo from inside a sandbox.
type processFacts struct {
	noNewPrivs bool
	netNS      string
}

func factsOf(pid int) processFacts {
	dir := "/proc/" + strconv.Itoa(pid)
	var f processFacts
	if b, err := os.ReadFile(dir + "/status"); err == nil {
		if i := bytes.Index(b, []byte("\nNoNewPrivs:")); i >= 0 {
			rest := bytes.TrimLeft(b[i+len("\nNoNewPrivs:"):], " \t")
			f.noNewPrivs = len(rest) > 0 && rest[0] == '1'
		}
	}
	f.netNS, _ = os.Readlink(dir + "/ns/net")
	return f
}

// parentOf is pid's parent, 0 when it is gone.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	var st procfile.Stat
	if !procfile.ParseStat(b, &st) {
		return 0
	}
	return st.PPid
}
