//go:build linux

package peers

import (
	"bytes"
	"os"
	"strconv"

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
//   - a process of the server's own (by cgroup or ancestry) that is more
//     confined than the server, by no_new_privs or another network
//     namespace, is held by whatever sandbox put it there (another agentty
//     started inside a session, for one).
func (g *Guard) Held(pid int) Verdict {
	if g == nil || pid <= 0 {
		return Verdict{}
	}
	var id string
	mine, known := false, false
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
	if !mine {
		return Verdict{}
	}
	f := factsOf(pid)
	switch {
	case f.noNewPrivs && !g.self.noNewPrivs:
		return Verdict{Session: id, Why: "no_new_privs"}
	case f.netNS != "" && f.netNS != g.self.netNS:
		return Verdict{Session: id, Why: "network namespace"}
	}
	return Verdict{}
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
