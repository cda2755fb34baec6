package bench

import (
	"bytes"
	"strings"
	"testing"
)

// TestResults_PrintDeaf: the -deaf tables carry every measured row for
// both servers, "no" for what did not happen, "-" where a standalone
// server has nothing to show, and the healthy client's rows with the
// ratio judged against issue 36's bar.
func TestResults_PrintDeaf(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ratio        float64
		during, want string
	}{
		{"within the bar", 1.5, "7.50", "1.50×  yes"},
		{"over the bar", 2.25, "11.25", "2.25×   NO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Results{Command: "agentty bench -deaf", Env: Env{Agentty: "v", CPUs: 2}, Deaf: &Deaf{
				Exe: "/bin/agentty", Revision: "abc123", LoadBefore: 3, LoadAfter: 4.25,
				Runs: []DeafRun{
					{Server: "serve -standalone", ReplyBytes: 750203, IdleKiB: 12000, IdleAnonKiB: 10000, PeakKiB: 2100000, PeakAnonKiB: 2090000,
						OverCapSeconds: 12.34, Sent: 3100, FloodSeconds: 12.4},
					{Server: "daemon", ReplyBytes: 750203, IdleKiB: 30000, IdleAnonKiB: 18000, PeakKiB: 68000, PeakAnonKiB: 55000,
						Sent: 1149, FloodSeconds: 20.7, CutSeconds: 12.5, Logged: true, ExitSeconds: 22.5,
						After5KiB: 30100, After5AnonKiB: 19200, After15KiB: 30000, After15AnonKiB: 19000,
						Before:   Latency{Count: 200, MedianMs: 0.8, P95Ms: 3, P99Ms: 6, MaxMs: 7},
						After:    Latency{Count: 200, MedianMs: 0.7, P95Ms: 2, P99Ms: 4, MaxMs: 5},
						Unloaded: Latency{Count: 400, MedianMs: 0.75, P95Ms: 2.5, P99Ms: 5, MaxMs: 7},
						Loaded:   Latency{Count: 900, MedianMs: 0.9, P95Ms: 4, P99Ms: 5 * tc.ratio, MaxMs: 30}, P99Ratio: tc.ratio},
				}}}
			var b bytes.Buffer
			r.Print(&b)
			got := b.String()
			for _, want := range []string{
				"agentty bench — reproduce with: agentty bench -deaf\n",
				"A client that reads no reply (issue 36): 50 get_history {lines 10000, max_bytes 262144} every 200ms, for at most 20s;\n",
				"measured /bin/agentty (revision abc123); machine load 3.0 → 4.2\n",
				"Server  serve -standalone  daemon",
				"one reply (bytes)  750203  750203",
				"VmRSS / RssAnon before (KiB)  12000 / 10000  30000 / 18000",
				"peak during the flood (KiB)  2100000 / 2090000  68000 / 55000",
				"over 2 GiB (flood stopped)  at 12.3 s  no",
				"requests sent  3100 in 12.4 s  1149 in 20.7 s",
				"cut off by the server  no  at 12.5 s",
				"its serve exited  no  at 22.5 s",
				"5 s after it was killed (KiB)  -  30100 / 19200",
				"15 s after (KiB)  -  30000 / 19000",
				"(seconds from the deaf client's first request; no: not within 40 s, or not before the server passed 2 GiB;\n a standalone server ends with its client)\n",
				"Healthy client, daemon: send_input to cat every 20 ms (ms)  n  median  p95  p99  max",
				"before the flood  200  0.80  3.00  6.00  7.00",
				"after (deaf client killed)  200  0.70  2.00  4.00  5.00",
				"unloaded: before + after  400  0.75  2.50  5.00  7.00",
				"during the flood  900  0.90  4.00  " + tc.during + "  30.00",
				"p99 during / unloaded p99 (issue 36: within 2×)  " + tc.want,
			} {
				if !strings.Contains(squeeze(got), squeeze(want)) {
					t.Errorf("output lacks %q:\n%s", want, got)
				}
			}
			if strings.Count(got, "Healthy client") != 1 {
				t.Errorf("want the healthy client's table once, for the daemon only:\n%s", got)
			}
		})
	}
}

// squeeze collapses runs of spaces, so rows compare whatever the
// columns' widths.
func squeeze(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}
