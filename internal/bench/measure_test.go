package bench

import (
	"bytes"
	"errors"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSummarizeLatency_NearestRank: percentiles are samples really seen,
// by nearest rank, whatever order the samples came in.
func TestSummarizeLatency_NearestRank(t *testing.T) {
	for _, tc := range []struct {
		name string
		ms   []int
		want Latency
	}{
		{"none", nil, Latency{}},
		{"one", []int{7}, Latency{Count: 1, MedianMs: 7, P95Ms: 7, P99Ms: 7, MinMs: 7, MaxMs: 7}},
		{"200 reversed", descending(200), Latency{Count: 200, MedianMs: 100, P95Ms: 190, P99Ms: 198, MinMs: 1, MaxMs: 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := make([]time.Duration, len(tc.ms))
			for i, m := range tc.ms {
				ds[i] = time.Duration(m) * time.Millisecond
			}
			if got := summarizeLatency(ds); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func descending(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = n - i
	}
	return out
}

// TestResults_Print: the tables carry the reproducing command, every row
// and the failures.
func TestResults_Print(t *testing.T) {
	r := &Results{Command: "agentty bench -n 2 -size 1MB -sessions 1", Env: Env{Agentty: "v", CPUs: 2, Build: "static (CGO_ENABLED=0)"},
		REPL: REPL{PTY: Latency{Count: 2, MedianMs: 1.5}, PTYRaw: Latency{Count: 2, MedianMs: 1.25}, Direct: Latency{Count: 2, MedianMs: 0.25},
			RawOverheadMedianMs: 1, DirectPipe: Latency{Count: 2, MedianMs: 0.03}, Mismatches: 1},
		Ingest: []Ingest{{Name: "agentty pipe mode, --no-store", Bytes: 1000000, Seconds: 0.5, MBps: 2}},
		Memory: Memory{Sessions: 1, IdleKiB: 100, WarmKiB: 120, WarmAnonKiB: 70, LoadedKiB: 150, PerSessionKiB: 50, AfterDeleteKiB: 130},
		Failed: []string{"repl: 1 replies were not the expected output"}}
	var b bytes.Buffer
	r.Print(&b)
	for _, want := range []string{
		"agentty bench — reproduce with: agentty bench -n 2 -size 1MB -sessions 1\n",
		"\nbinary built static (CGO_ENABLED=0)\n\n",
		"agentty send_input, pty (python3 -q)  2    1.50  0.00",
		"agentty send_input, pty, raw JSON-RPC client  2    1.25  0.00",
		"... without the SDK client (raw − direct)       1.00  0.00",
		"direct pipes, no agentty  2    0.03  0.00",
		"agentty pipe mode, --no-store        1000000              -    0.500     2",
		"with 1 idle cat sessions (pty)   150",
		"idle again after one session   120",
		"all 2 deleted   130",
		"\n after one session 70 KiB anonymous)\n",
		"\nFAILED: repl: 1 replies were not the expected output\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestResults_PrintBudgets: each budget row shows the measurement, the
// budget and whether it was met.
func TestResults_PrintBudgets(t *testing.T) {
	r := &Results{ToolsListBytes: 17046, Cold: Latency{MedianMs: 12.5},
		Memory: Memory{IdleKiB: 10240, WarmKiB: 10752, PerSessionKiB: 1200, AfterDeleteKiB: 11264, ReturnSeconds: 5},
		REPL:   REPL{OverheadMedianMs: 0.524, OverheadP95Ms: 0.8, PTYRaw: Latency{Count: 1}, RawOverheadMedianMs: 0.38, RawOverheadP95Ms: 0.7}}
	var b bytes.Buffer
	r.printBudgets(&b)
	for _, want := range []string{
		"tools/list result   16.6 KiB   20.0 KiB  yes",
		"cold start median   12.5 ms   10.0 ms   NO",
		"per idle PTY session  1200.0 KiB  100.0 KiB   NO",
		"RSS after deleting them, over idle   10.0 %   20.0 %  yes",
		"... over idle after one session   4.8 %   -   -",
		"PTY round trip overhead median   0.52 ms   0.50 ms   NO",
		"PTY round trip overhead p95   0.8 ms   1.5 ms  yes",
		"... raw JSON-RPC client, median   0.38 ms   0.50 ms  yes",
		"... raw JSON-RPC client, p95   0.7 ms   1.5 ms  yes",
	} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("budgets lack %q:\n%s", want, b.String())
		}
	}
}

// TestResults_ThroughputBudgets: the throughput rows compare each figure
// with its baseline from the same run; seq's byte count is what a PTY
// delivers (number, \r\n): `seq 1 3000000 | wc -c` is 22888896, plus a \r per line.
func TestResults_ThroughputBudgets(t *testing.T) {
	if got, want := seqPTYBytes(12), int64(9*3+3*4); got != want {
		t.Fatalf("seqPTYBytes(12) = %d, want %d", got, want)
	}
	if got, want := seqPTYBytes(3000000), int64(22888896+3000000); got != want {
		t.Fatalf("seqPTYBytes(3000000) = %d, want %d", got, want)
	}
	r := &Results{Pairs: []IngestPair{
		{Name: "agentty pty mode, --no-store", Base: "program alone, read through a pty", Runs: 3, Secs: 5, BaseSecs: 4.5, Percent: 90},
		{Name: "agentty pipe mode, store on", Base: "agentty pipe mode, --no-store", Runs: 3, Secs: 0.4, BaseSecs: 0.3, Percent: 75}},
		Seq: SeqRun{N: 3000000, Bytes: 25888896, Runs: 3, AgenttySecs: 1.5, BareSecs: 1, TimesBarePTY: 1.5}}
	var b bytes.Buffer
	r.printBudgets(&b)
	r.Print(&b)
	for _, want := range []string{
		"PTY ingest with screen, of bare PTY 90.0 % >= 90.0 % yes",
		"pipe ingest with store, of --no-store 75.0 % >= 80.0 % NO",
		"seq 1 3000000 PTY start->exit, x bare PTY 1.5 x 1.2 x NO",
		"agentty pipe mode, store on 3 0.400 agentty pipe mode, --no-store 0.300 75.0",
		"median of 3 interleaved pairs: agentty 1.500 s, bare PTY 1.000 s (1.50x)",
	} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), want) {
			t.Errorf("budgets lack %q:\n%s", want, b.String())
		}
	}
}

// TestInterleave_AlternatesAndStops: the two sides take turns, a first,
// and the first error ends the runs with what was timed before it.
func TestInterleave_AlternatesAndStops(t *testing.T) {
	var order []string
	timer := func(name string, ds ...time.Duration) func() (time.Duration, error) {
		i := 0
		return func() (time.Duration, error) {
			order = append(order, name)
			if i == len(ds) {
				return 0, errors.New(name + " failed")
			}
			i++
			return ds[i-1], nil
		}
	}
	as, bs, err := interleave(3, timer("a", 3, 1, 2), timer("b", 1, 5, 1))
	if err != nil || strings.Join(order, "") != "ababab" || !slices.Equal(as, []time.Duration{3, 1, 2}) || !slices.Equal(bs, []time.Duration{1, 5, 1}) {
		t.Fatalf("interleave = %v, %v, %v in order %v", as, bs, err, order)
	}
	if got := summarizeLatency(as).MedianMs / summarizeLatency(bs).MedianMs; got != 2 {
		t.Errorf("ratio of medians = %v, want 2", got)
	}
	order = nil
	as, bs, err = interleave(3, timer("a", 3, 1, 2), timer("b", 1))
	if err == nil || err.Error() != "b failed" || strings.Join(order, "") != "abab" || len(as) != 2 || len(bs) != 1 {
		t.Fatalf("with b failing on its second run: %v, %v, %v in order %v", as, bs, err, order)
	}
}

// TestScale_PrintBudgets: a -scale run prints its command, its tables and
// each scale budget with whether it was met.
func TestScale_PrintBudgets(t *testing.T) {
	r := &Results{Command: "agentty bench -scale 4", Env: Env{Agentty: "v", CPUs: 2}, Scale: &Scale{
		Sessions: 4, PTY: 2, Pipe: 2, PTYArgv: []string{"/opt/py/bin/python3", "-q"}, PipeArgv: []string{"cat"}, Answered: 3, Mismatches: 1,
		RoundTrip: Latency{Count: 4, MedianMs: 2, P99Ms: 60}, IdleKiB: 10240, FullKiB: 10640, PerSessionKiB: 100, PerPTYKiB: 150,
		Goroutines: Counts{Before: 12, Full: 28, After: 13}, FDs: Counts{Before: 13, Full: 29, After: 13},
		AfterDeleteKiB: 11264, IdleAnonKiB: 3000, FullAnonKiB: 3400, AfterAnonKiB: 3750, ReturnSeconds: 5}}
	var b bytes.Buffer
	r.Print(&b)
	got := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{
		"agentty bench — reproduce with: agentty bench -scale 4",
		"4 sessions at once: 2 PTY (python3 -q) + 2 pipe (cat)",
		"all sessions 4 2.00 0.00 60.00",
		"goroutines 12 28 13",
		"sessions that answered their own token 3 4 NO",
		"round trip p99, all sessions there 60.0 ms 50.0 ms NO",
		"RSS over idle per session 100.0 KiB 100.0 KiB yes",
		"per PTY session 150.0 KiB 100.0 KiB NO",
		"goroutines after delete, over before 1 0 NO",
		"descriptors after delete, over before 0 0 yes",
		"VmRSS (KiB) 10240 10640 11264",
		"of it RssAnon, its own (KiB) 3000 3400 3750",
		"RssAnon after delete, over idle 25.0 % 20.0 % NO",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestBuildMode: the build mode is read from the binary measured (here the
// test binary), as its build settings say.
func TestBuildMode(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build info in the test binary")
	}
	want := ""
	for _, st := range bi.Settings {
		if st.Key == "CGO_ENABLED" {
			want = "static (CGO_ENABLED=0)"
			if st.Value != "0" {
				want = "with cgo (CGO_ENABLED=1): idle RSS about 6 MiB more than a static build"
			}
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got := buildMode(exe); got != want || got == "" {
		t.Fatalf("buildMode = %q, want %q", got, want)
	}
	if got := buildMode("/nonexistent"); got != "" {
		t.Fatalf("buildMode of no file = %q", got)
	}
}

// TestGapError: a store-on ingest run whose store dropped output counts as
// failed, not as a cheaper store.
func TestGapError(t *testing.T) {
	if err := gapError(Ingest{Name: "agentty pipe mode, store on", Counted: 200000000}); err != nil {
		t.Fatalf("no gap: %v", err)
	}
	err := gapError(Ingest{Name: "agentty pipe mode, store on", Counted: 200000000, GapBytes: 8744960})
	want := "agentty pipe mode, store on: the store dropped 8744960 of 200000000 bytes (a gap: its writer fell behind)"
	if err == nil || err.Error() != want {
		t.Fatalf("gapError = %v, want %q", err, want)
	}
}
