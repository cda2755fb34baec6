// Package guardstart runs agentty's guard from a package init, before the
// rest of the executable has initialized.
//
// The guard (proctree.RunGuard) is agentty's own executable started again
// with one argument. It idles for as long as the server lives, then kills
// what the server left, so what it holds while idle is what it costs: the
// budget is 2 MiB. Run from main, it would first run every package init of
// the binary, and the Docker, Kubernetes and registry clients, the JSON
// schema package and the rest allocate 1.3 MB there that stays live for the
// guard's whole life (its RssAnon was 3.8 MiB).
//
// Go initializes packages one at a time, each time the first one in
// import-path order whose imports are all initialized (the Go spec, since Go
// 1.21). This package imports only proctree, whose own imports are the
// standard library, x/sys/unix and two small packages of this module, so its
// init runs after about 120 packages and before the other 120; when the
// arguments name the guard, it runs the guard there and exits. Nothing the
// guard calls can reach a package not yet initialized, since everything it
// calls is among this package's imports. TestGuard_RunsBeforeHeavyInits in
// cmd/agentty checks the order on the built binary.
package guardstart

import (
	"os"

	"github.com/agentty/agentty/internal/proctree"
)

// Arg is the one argument that makes agentty's executable the guard.
const Arg = "__guard"

// KeeperArg is the one argument that makes agentty's executable a
// session's keeper (proctree.RunKeeper), which, like the guard, idles for
// its session's whole life.
const KeeperArg = proctree.KeeperArg

func init() {
	if len(os.Args) == 2 && os.Args[1] == Arg {
		os.Exit(proctree.RunGuard())
	}
	if len(os.Args) == 2 && os.Args[1] == KeeperArg {
		os.Exit(proctree.RunKeeper(nil))
	}
	// Windows: the short-lived helper that raises Ctrl+C or Ctrl+Break on
	// a session's console (backend, local_windows.go).
	if len(os.Args) == 4 && os.Args[1] == proctree.CtrlArg {
		os.Exit(proctree.RunCtrl(os.Args[2:]))
	}
}
