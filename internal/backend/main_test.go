//go:build linux

package backend

import (
	"os"
	"testing"

	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/sandbox"
)

// TestMain lets this test binary be the sandbox helper its sandboxed
// children re-execute (see internal/sandbox), a session's keeper, or
// signalsChild.
func TestMain(m *testing.M) {
	if sandbox.IsHelper(os.Args) {
		os.Exit(sandbox.Main())
	}
	if len(os.Args) == 2 && os.Args[1] == proctree.KeeperArg {
		os.Exit(proctree.RunKeeper(nil))
	}
	// A -race binary sleeps 1 s at exit by default: this binary is also
	// the keepers' executable, and tests wait for keepers to exit.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	if os.Getenv(signalsChildEnv) != "" {
		os.Exit(signalsChild())
	}
	os.Exit(m.Run())
}
