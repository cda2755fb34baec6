package inputwait

import (
	"os"
	"testing"

	"github.com/agentty/agentty/internal/proctree"
)

// TestMain gives the programs these tests start a terminal's SIGHUP and
// SIGINT even when the suite itself runs with them ignored (under nohup),
// as agentty gives its sessions: the job-control cases hang up shells.
func TestMain(m *testing.M) {
	proctree.ChildDefaults()
	os.Exit(m.Run())
}
