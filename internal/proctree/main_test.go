//go:build linux

package proctree

import (
	"fmt"
	"os"
	"testing"
)

// Test-binary re-exec switches: the reaper and guard scenarios need a fresh
// process (a subreaper, or a parent that gets SIGKILLed) so the test process
// itself is left untouched.
const (
	modeEnv     = "PROCTREE_TEST_MODE"
	instanceEnv = "PROCTREE_TEST_INSTANCE"
	guardArg    = "proctree-guard"
	// withGuardEnv turns the fake parent's guard off for the control case.
	withGuardEnv = "PROCTREE_TEST_WITH_GUARD"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == guardArg {
		os.Exit(RunGuard())
	}
	switch mode := os.Getenv(modeEnv); mode {
	case "":
		// Re-exec'd children built with -race otherwise pause a second at
		// exit, which only slows the suite down.
		if os.Getenv("GORACE") == "" {
			os.Setenv("GORACE", "atexit_sleep_ms=0")
		}
		// The hang-up cases need the terminal's SIGHUP in the programs
		// they start, also when the suite runs under nohup.
		ChildDefaults()
		os.Exit(m.Run())
	case "reaper", "noreaper":
		os.Exit(reaperChild(mode == "reaper"))
	case "fakeparent":
		os.Exit(fakeParent())
	case "fakeparent-portable":
		os.Exit(fakeParentPortable())
	case "childdefaults", "childdefaults-off":
		os.Exit(childDefaultsChild(mode == "childdefaults"))
	default:
		fmt.Fprintf(os.Stderr, "unknown %s=%q\n", modeEnv, mode)
		os.Exit(2)
	}
}
