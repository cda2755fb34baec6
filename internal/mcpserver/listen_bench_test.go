package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/session"
)

// BenchmarkListenToReply measures the time from a server's listen() (the
// server writes the wall clock right after it into a file) to the
// start_process reply that carries the port, for a server that logs a line
// after listen() and for one that prints nothing (found by timed scans).
// Reported: median and p95 in ms.
func BenchmarkListenToReply(b *testing.B) {
	for _, bm := range []struct{ name, print string }{
		{"logs", "print('listening on', s.getsockname()[1], flush=True)"},
		{"silent", "pass"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			c := newClient(b, session.Config{})
			stamp := filepath.Join(b.TempDir(), "t")
			prog := "import socket, time, sys, os\ns = socket.socket(); s.bind(('127.0.0.1', 0))\ntime.sleep(0.05)\ns.listen(); t = time.time_ns()\n" +
				bm.print + "\nopen(sys.argv[1], 'w').write(str(t))\ntime.sleep(60)"
			var lat []time.Duration
			for b.Loop() {
				r := c.start(map[string]any{"argv": []string{"python3", "-c", prog, stamp}, "until_listening": true, "timeout_ms": 20000})
				got := time.Now()
				if r.Reason != "listening" {
					b.Fatalf("reason %s", r.Reason)
				}
				// A timed scan may see the socket before the server wrote the stamp.
				raw, err := os.ReadFile(stamp)
				for deadline := time.Now().Add(5 * time.Second); err != nil && time.Now().Before(deadline); raw, err = os.ReadFile(stamp) {
					time.Sleep(time.Millisecond)
				}
				if err != nil {
					b.Fatal(err)
				}
				c.call("terminate_process", map[string]any{"session_id": r.SessionID, "force": true}, nil)
				ns, _ := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
				lat = append(lat, got.Sub(time.Unix(0, ns)))
				os.Remove(stamp)
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// TestListening_DevServerFlow is the dev-server flow of docs/events.md in
// two calls: start python's http.server and learn it is ready, on which
// port, with its log line; stop it. It logs the calls' reply sizes.
func TestListening_DevServerFlow(t *testing.T) {
	c := newClient(t, session.Config{})
	size := 0
	call := func(name string, args map[string]any, out any) {
		t.Helper()
		res := c.call(name, args, out)
		b, _ := json.Marshal(res)
		size += len(b)
	}
	var r StartResult
	call("start_process", map[string]any{"command": "python3 -m http.server 0 --bind 127.0.0.1", "until_listening": true}, &r)
	if r.Reason != "listening" || len(r.Listening) != 1 || !strings.Contains(r.Output, "Serving HTTP on 127.0.0.1 port "+strconv.Itoa(r.Listening[0].Port)) {
		t.Fatalf("start: reason=%s listening=%+v output=%q", r.Reason, r.Listening, r.Output)
	}
	dial(t, r.Listening[0])
	var info InfoResult
	call("terminate_process", map[string]any{"session_id": r.SessionID}, &info)
	if info.State != "exited" {
		t.Fatalf("stop: %+v", info)
	}
	t.Logf("dev-server flow: 2 calls, %.1f KB of replies", float64(size)/1024)
}
