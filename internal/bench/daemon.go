package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/daemon"
)

// DaemonREPL compares the PTY REPL round trip of a standalone server with
// the same through the daemon (serve relaying stdio over the socket),
// measured alternately in one run so both see the same load.
type DaemonREPL struct {
	Standalone       Latency `json:"standalone_pty"`
	Daemon           Latency `json:"daemon_pty"`
	OverheadMedianMs float64 `json:"relay_overhead_median_ms"`
	OverheadP95Ms    float64 `json:"relay_overhead_p95_ms"`
	Mismatches       int     `json:"mismatches"`
	// Resident memory of the relaying serve (one per client) and of the
	// daemon with the one python session, after the round trips.
	RelayKiB  int64 `json:"relay_rss_kib"`
	DaemonKiB int64 `json:"daemon_rss_kib"`
}

// daemonServer launches "agentty serve" relaying to a daemon of its own on
// a socket in dir (never the user's), with its log in dir.
func (rn *runner) daemonServer(ctx context.Context, dir string) (*mcp.ClientSession, *exec.Cmd, error) {
	cmd := exec.Command(rn.exe, "serve", "-log-level", "warn", "-no-store", "-idle", "0")
	cmd.Env = append(os.Environ(), "AGENTTY_STANDALONE=", "AGENTTY_SOCKET="+filepath.Join(dir, "agentty.sock"),
		"XDG_STATE_HOME="+dir)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "agentty-bench", Version: rn.version}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	return cs, cmd, err
}

// daemonREPL times n send_input round trips on a python3 PTY session of a
// standalone server and of a daemon, alternating, then stops the daemon.
func (rn *runner) daemonREPL(ctx context.Context, n int) (DaemonREPL, error) {
	var r DaemonREPL
	dir, err := os.MkdirTemp("", "agentty-bench-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "agentty.sock")
	alone, _, err := rn.server(ctx)
	if err != nil {
		return r, err
	}
	defer alone.Close()
	viaDaemon, relay, err := rn.daemonServer(ctx, dir)
	if err != nil {
		return r, fmt.Errorf("serve through the daemon: %w", err)
	}
	st, err := daemon.GetStatus(ctx, socket)
	if err != nil {
		viaDaemon.Close()
		return r, err
	}
	defer func() {
		viaDaemon.Close()
		stopDaemon(st.PID)
	}()
	ids := make([]string, 2)
	for i, cs := range []*mcp.ClientSession{alone, viaDaemon} {
		var st struct {
			SessionID string `json:"session_id"`
			Reason    string `json:"reason"`
		}
		if _, err := call(ctx, cs, "start_process", map[string]any{"argv": []string{"python3", "-q"}}, &st); err != nil {
			return r, err
		}
		if st.Reason != "awaiting_input" {
			return r, fmt.Errorf("start_process returned %q, want awaiting_input", st.Reason)
		}
		ids[i] = st.SessionID
		defer call(ctx, cs, "terminate_process", map[string]any{"session_id": st.SessionID, "force": true}, nil)
	}
	var ds [2][]time.Duration
	for i := 1; i <= n; i++ {
		for k, cs := range []*mcp.ClientSession{alone, viaDaemon} {
			var out struct {
				Output string `json:"output"`
			}
			t0 := time.Now()
			_, err := call(ctx, cs, "send_input", map[string]any{"session_id": ids[k], "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &out)
			d := time.Since(t0)
			if err != nil {
				return r, err
			}
			ds[k] = append(ds[k], d)
			if out.Output != strconv.Itoa(i*7)+"\n>>> " {
				r.Mismatches++
			}
		}
	}
	r.Standalone, r.Daemon = summarizeLatency(ds[0]), summarizeLatency(ds[1])
	if r.RelayKiB, err = benchRSSKiB(relay.Process.Pid); err != nil {
		return r, err
	}
	if r.DaemonKiB, err = benchRSSKiB(st.PID); err != nil {
		return r, err
	}
	r.OverheadMedianMs = r.Daemon.MedianMs - r.Standalone.MedianMs
	r.OverheadP95Ms = r.Daemon.P95Ms - r.Standalone.P95Ms
	return r, nil
}
