// Package platform names the strategy this build uses wherever kernels
// differ in what they let agentty see or enforce, so the engine, get_policy
// and the docs read one answer.
//
// Linux has the strongest strategy for each guarantee. macOS and Windows
// need weaker ones (an inferred input-wait verdict, a tree followed by
// ancestry, a guard that watches agentty's pid). So that those run in CI
// here, Linux can be told to use them through AGENTTY_PORTABLE: "1" or
// "all" for every one, or a comma list of "verdict", "tree" and "guard".
package platform

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// Env is the variable that switches Linux to the portable strategies.
const Env = "AGENTTY_PORTABLE"

// Strategies says which portable strategy is in use for each guarantee.
// The zero value is Linux's own: exact everywhere.
type Strategies struct {
	// Verdict: awaiting input is inferred from the foreground group's
	// thread states, CPU time and the terminal's queues and modes, not read
	// from each thread's wait channel and syscall.
	Verdict bool
	// Tree: a session's processes are the ones tracked by ancestry while
	// they run, not a cgroup's or a keeper's.
	Tree bool
	// Guard: the guard that ends every session when agentty dies watches
	// agentty's pid, without a parent-death signal.
	Guard bool
}

// Any reports whether any portable strategy is in use.
func (s Strategies) Any() bool { return s.Verdict || s.Tree || s.Guard }

// String lists the portable strategies in use, in Env's syntax ("" for none).
func (s Strategies) String() string {
	var parts []string
	if s.Verdict {
		parts = append(parts, "verdict")
	}
	if s.Tree {
		parts = append(parts, "tree")
	}
	if s.Guard {
		parts = append(parts, "guard")
	}
	return strings.Join(parts, ",")
}

// Parse reads a value of Env. The empty string and "0" mean none.
func Parse(v string) (Strategies, error) {
	var s Strategies
	switch strings.TrimSpace(v) {
	case "", "0":
		return s, nil
	case "1", "all":
		return Strategies{Verdict: true, Tree: true, Guard: true}, nil
	}
	for _, f := range strings.Split(v, ",") {
		switch strings.TrimSpace(f) {
		case "verdict":
			s.Verdict = true
		case "tree":
			s.Tree = true
		case "guard":
			s.Guard = true
		default:
			return Strategies{}, fmt.Errorf("%s=%q: unknown strategy %q; use 1, all, or a comma list of verdict, tree and guard", Env, v, f)
		}
	}
	return s, nil
}

var (
	once    sync.Once
	current Strategies
	bad     error
)

func load() {
	current, bad = Parse(os.Getenv(Env))
	current = native(current)
}

// Current returns the strategies of this process: the platform's own,
// and on Linux what Env asks for. A bad Env value counts as none; Check
// reports it.
func Current() Strategies {
	once.Do(load)
	return current
}

// Check reports a bad Env value, for commands to refuse at start rather
// than run with other strategies than the caller asked for.
func Check() error {
	once.Do(load)
	return bad
}
