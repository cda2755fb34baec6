package nodelink

import (
	"os"
	"testing"

	"github.com/agentty/agentty/internal/nodebackend"
)

// nodeEnv makes the test binary an `agentty node` (see TestMain): the fake
// cluster's exec runs it over the stdio the engine gives it.
const nodeEnv = "AGENTTY_TEST_NODE"

func TestMain(m *testing.M) {
	if os.Getenv(nodeEnv) == "1" {
		if err := nodebackend.Serve(os.Stdin, os.Stdout, "test"); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
