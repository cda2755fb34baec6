package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// portableTree runs agentty with macOS's tree and guard (internal/platform):
// no cgroup, keeper, subreaper or parent-death signal; trees are tracked by
// ancestry and the guard watches agentty's pid.
const portableTree = "AGENTTY_PORTABLE=tree,guard"

// treeEnv is one way to run the tree tests: Linux's own strategies, or
// macOS's through portableTree.
type treeEnv struct {
	name string
	env  []string
	// start starts a tree to end in mode and returns its session and tag
	// once all of it runs.
	start func(s *server, mode string) (id, tag string)
}

var treeEnvs = []treeEnv{
	{"native", nil, (*server).startTree},
	{"portable", []string{portableTree}, (*server).startOrphanTree},
}

// withEnv is a startServerWith setup adding env.
func withEnv(env []string) func(*exec.Cmd) {
	return func(cmd *exec.Cmd) { cmd.Env = append(cmd.Env, env...) }
}

// orphanArgv is treeArgv plus, under a middle process the test kills, a
// sleep in a session of its own with nothing of agentty in its
// environment (only the test's tag): once the middle is gone, it is in no
// group, carries no marker and has no parent of the tree. Only the
// tracker, which saw it born, still knows it.
var orphanArgv = []string{"sh", "-c", "sleep 1000 & setsid sleep 1000 & " +
	"(env -i " + tagVar + "=$" + tagVar + " setsid sleep 1000 & exec sleep 1000) & wait"}

// startOrphanTree starts orphanArgv in mode, checks that the server tracks
// trees by ancestry, waits until the tracker has seen all five processes,
// kills the middle and waits until the tracker has seen it gone. It
// returns with four tagged processes running, the orphan among them.
func (s *server) startOrphanTree(mode string) (id, tag string) {
	s.t.Helper()
	var pol struct {
		Containment struct {
			Kernel struct {
				Cgroup bool     `json:"cgroup"`
				Notes  []string `json:"notes"`
			} `json:"kernel"`
		} `json:"containment"`
	}
	s.call("get_policy", map[string]any{}, &pol)
	if k := pol.Containment.Kernel; k.Cgroup || !slices.ContainsFunc(k.Notes, func(n string) bool { return strings.Contains(n, "tracked by ancestry") }) {
		s.t.Fatalf("with %s get_policy says cgroup=%t, notes %q: want trees tracked by ancestry", portableTree, k.Cgroup, k.Notes)
	}
	tag = newTag(s.t)
	var r readResult
	s.call("start_process", map[string]any{"argv": orphanArgv, "mode": mode, "env": map[string]string{tagVar: tag}, "timeout_ms": 0}, &r)
	if r.State == "exited" {
		s.t.Fatalf("%s tree exited at once: %+v", mode, r)
	}
	id = r.SessionID
	waitTagged(s.t, tag, 5, 30*time.Second)
	s.waitTracked(id, 5)
	middle := orphanMiddle(s.t, tag)
	if err := killPID(middle); err != nil {
		s.t.Fatal(err)
	}
	waitTagged(s.t, tag, 4, 30*time.Second)
	s.waitTracked(id, 4)
	return id, tag
}

// waitTracked waits until get_session_info counts n processes in the
// session's tracked tree. The tracker rescans on a clock, and no event
// says it did: a bounded poll.
func (s *server) waitTracked(id string, n int64) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		var info struct {
			Containment struct {
				Usage map[string]int64 `json:"usage"`
			} `json:"containment"`
		}
		s.call("get_session_info", map[string]any{"session_id": id}, &info)
		got, ok := info.Containment.Usage["processes"]
		if ok && got == n {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("session %s: tracked processes %d (reported %t), want %d", id, got, ok, n)
		}
		time.Sleep(delay) // backoff of a bounded poll: no event announces a rescan
	}
}

// orphanMiddle returns the middle process of orphanArgv's tree, tagged
// tag, once the process below it has run setsid and exec'd sleep: until
// then it still carries agentty's marker.
func orphanMiddle(t testing.TB, tag string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
		pids := taggedPIDs(tag)
		parent, session := map[int]int{}, map[int]int{}
		for _, pid := range pids {
			if f, _ := statFields(pid); len(f) > 3 {
				parent[pid], session[pid] = atoi(f[1]), atoi(f[3])
			}
		}
		root := 0
		for _, pid := range pids {
			if _, tagged := parent[parent[pid]]; !tagged {
				root = pid // the one tagged process whose parent is not
			}
		}
		for _, o := range pids {
			m := parent[o]
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", o))
			if parent[m] == root && root != 0 && session[o] == o && string(comm) == "sleep\n" {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no middle with a setsid sleep below it among %s", describe(pids))
		}
		time.Sleep(delay) // backoff of a bounded poll on /proc: no event announces an exec
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestRunCommand_PortableLeftoversEnd: with trees tracked by ancestry
// (no cgroup, no keeper) what a run leaves behind still ends with it, as
// with a cgroup or a keeper. (A leftover that also cleared its environment
// and was orphaned before the tracker's next scan is the tracker's known
// blind spot: docs/containment.md.)
func TestRunCommand_PortableLeftoversEnd(t *testing.T) {
	t.Parallel()
	s := startServerWith(t, withEnv([]string{portableTree}))
	for _, sc := range []struct{ name, script string }{
		{"setsid", "setsid sleep 300 >/dev/null 2>&1 & echo started"},
		{"double fork", "(sleep 300 >/dev/null 2>&1 &); echo started"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			if out := runLeavesNothing(t, s, sc.script); out != "started\n" {
				t.Fatalf("stdout %q, want %q", out, "started\n")
			}
		})
	}
}
