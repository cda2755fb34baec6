// Package bench measures agentty as its users meet it: it drives a real
// "agentty serve" over stdio exactly as an MCP client does and reports
// round-trip latency, ingest throughput, server memory and cold-start
// time, each beside the same work done without agentty.
package bench

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// Config is one run's parameters.
type Config struct {
	N        int    // REPL round trips per mode
	Size     int64  // bytes each ingest run produces
	SizeText string // Size as given, for the command line in Results
	Sessions int    // idle sessions started for the memory measurement
	// Scale, when above 0, runs only the scale measurement with this many
	// sessions at once (scale.go); ReturnWithin bounds its wait for the
	// server's goroutines and descriptors to come back after deleting them,
	// RSSWithin its wait for memory (0: a minute; RSSWithin < 0: read once).
	Scale                   int
	ReturnWithin, RSSWithin time.Duration
	// Deaf runs only issue 36's client that reads no reply (deaf.go).
	Deaf bool
	// Verdicts runs only the awaiting-input verdicts' accuracy and
	// latency, N runs per case (verdict.go).
	Verdicts bool
	// Env is added to the measured server's environment.
	Env []string
	// Exe is the agentty binary whose "serve" is measured (default: this
	// executable); Version is its version, for the record.
	Exe, Version string
	// Progress receives a line as each measurement begins (nil: none).
	Progress io.Writer
}

// Results is everything one bench run measured; -json prints it as is,
// so its field names are a stable, machine-readable record of a run.
type Results struct {
	Command string     `json:"command"`
	Env     Env        `json:"env"`
	REPL    REPL       `json:"repl"`
	Daemon  DaemonREPL `json:"daemon_repl"`
	Ingest  []Ingest   `json:"ingest"`
	// Pairs are the ingest budgets' interleaved medians.
	Pairs  []IngestPair `json:"ingest_pairs"`
	Seq    SeqRun       `json:"seq_pty"`
	Memory Memory       `json:"memory"`
	Cold   Latency      `json:"cold_start"`
	// ToolsListBytes is the tools/list result as JSON: what every
	// conversation reads into the model's context.
	ToolsListBytes int      `json:"tools_list_bytes"`
	Failed         []string `json:"failures,omitempty"`

	// Scale is set by a -scale run, which measures nothing else.
	Scale *Scale `json:"scale,omitempty"`
	// Deaf is set by a -deaf run, which measures nothing else.
	Deaf *Deaf `json:"deaf,omitempty"`
	// Verdicts is set by a -verdicts run, which measures nothing else.
	Verdicts *Verdicts `json:"verdicts,omitempty"`
}

// Env records what the numbers were measured on; without it they
// cannot be compared between machines.
type Env struct {
	Agentty string `json:"agentty"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Kernel  string `json:"kernel"`
	CPU     string `json:"cpu"`
	CPUs    int    `json:"cpus"`
	Python  string `json:"python"`
	// Build is how the measured binary was built: "static (CGO_ENABLED=0)"
	// or "cgo". A cgo build is linked by the system's linker, whose
	// output the kernel caches in large folios, each mapped whole at a
	// touch, and maps libc: about 6 MiB more idle RSS.
	Build string `json:"build"`
}

// REPL is the round-trip section: agentty over a PTY and over pipes,
// and the same round trips done directly without agentty.
type REPL struct {
	PTY              Latency `json:"agentty_pty"`
	Pipe             Latency `json:"agentty_pipe"`
	Direct           Latency `json:"direct_pty"`
	OverheadMedianMs float64 `json:"overhead_median_ms"`
	OverheadP95Ms    float64 `json:"overhead_p95_ms"`
	// PTYRaw is PTY through a client that writes and reads the JSON-RPC
	// lines itself (rawclient.go): the server's and the kernel's part of
	// PTY, without the SDK client's own.
	PTYRaw              Latency `json:"agentty_pty_raw_client"`
	RawOverheadMedianMs float64 `json:"raw_client_overhead_median_ms"`
	RawOverheadP95Ms    float64 `json:"raw_client_overhead_p95_ms"`
	// DirectPipe is Pipe's exchange done directly on pipes.
	DirectPipe           Latency `json:"direct_pipe"`
	PipeOverheadMedianMs float64 `json:"pipe_overhead_median_ms"`
	PipeOverheadP95Ms    float64 `json:"pipe_overhead_p95_ms"`
	Mismatches           int     `json:"mismatches"`
}

// Ingest is one throughput measurement.
type Ingest struct {
	Name    string  `json:"name"`
	Bytes   int64   `json:"program_bytes"`
	Counted int64   `json:"counted_bytes,omitempty"`
	Seconds float64 `json:"seconds"`
	MBps    float64 `json:"mb_per_s"`
	// ServerCPU is the server's CPU time (user and system, all threads)
	// over the same span, for agentty rows: what ingest costs beside the
	// program's own work.
	ServerCPU float64 `json:"server_cpu_seconds,omitempty"`
	// With the transcript store: bytes on disk after the run, per byte of
	// output, and output the writer could not keep up with.
	DiskBytes int64   `json:"disk_bytes,omitempty"`
	WriteAmp  float64 `json:"write_amplification,omitempty"`
	GapBytes  int64   `json:"gap_bytes,omitempty"`
}

// Memory is the server memory section.
type Memory struct {
	Sessions      int     `json:"sessions"`
	IdleKiB       int64   `json:"rss_idle_kib"`
	IdleAnonKiB   int64   `json:"rss_anon_idle_kib"` // RssAnon: what this server alone holds
	LoadedKiB     int64   `json:"rss_with_sessions_kib"`
	DoubleKiB     int64   `json:"rss_with_twice_the_sessions_kib"`
	PerSessionKiB float64 `json:"per_session_kib"` // (DoubleKiB − LoadedKiB) / Sessions
	// Idle again after one session was started and deleted, once the
	// server gave its memory back: what any use of the server keeps
	// (caches built at a tool's first call, the runtime's metadata for
	// the allocation sizes a session used), apart from what grows with
	// the number of sessions.
	WarmKiB     int64 `json:"rss_idle_after_one_session_kib"`
	WarmAnonKiB int64 `json:"rss_anon_idle_after_one_session_kib"`
	// After the sessions were deleted: RSS once within 20 % of IdleKiB
	// (or after a minute), and how long that took.
	AfterDeleteKiB int64   `json:"rss_after_delete_kib"`
	ReturnSeconds  float64 `json:"return_seconds"`
	// The guard process beside the server, with the sessions running:
	// VmRSS, and RssAnon, what it holds of its own (the rest of its RSS is
	// the binary's page cache, shared with the server).
	GuardKiB     int64 `json:"guard_rss_kib"`
	GuardAnonKiB int64 `json:"guard_rss_anon_kib"`
}

// coldStartRuns is how many launches the cold start's median is of: a
// launch takes about 10 ms, and ten of them swung the median by a
// millisecond from run to run.
const coldStartRuns = 31

// Run measures cold start, server memory, REPL round trips and ingest
// throughput, in that order; a measurement that fails is recorded in
// Failed and the others still run.
func Run(ctx context.Context, cfg Config) *Results {
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	rn := newRunner(cfg)
	if cfg.Scale > 0 {
		return runScale(ctx, rn, cfg)
	}
	if cfg.Deaf {
		return runDeaf(ctx, rn, cfg)
	}
	if cfg.Verdicts {
		return runVerdicts(ctx, rn, cfg)
	}
	res := &Results{
		Command: fmt.Sprintf("agentty bench -n %d -size %s -sessions %d", cfg.N, cfg.SizeText, cfg.Sessions),
		Env:     environment(cfg.Version, rn.exe),
	}
	progress := func(what string) { fmt.Fprintf(cfg.Progress, "bench: %s...\n", what) }
	fail := func(what string, err error) {
		res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", what, err))
	}
	var err error
	progress("cold start")
	if res.Cold, res.ToolsListBytes, err = rn.coldStart(ctx, coldStartRuns); err != nil {
		fail("cold start", err)
	}
	// Memory is measured on a fresh server so the ingest runs' buffers do
	// not count as idle memory.
	progress("server memory")
	if res.Memory, err = rn.memory(ctx, cfg.Sessions); err != nil {
		fail("memory", err)
	}
	progress("REPL round trips")
	if res.REPL, err = rn.repl(ctx, cfg.N); err != nil {
		fail("repl", err)
	}
	if res.REPL.Mismatches > 0 {
		fail("repl", fmt.Errorf("%d replies were not the expected output", res.REPL.Mismatches))
	}
	progress("REPL round trips, standalone and through the daemon")
	if res.Daemon, err = rn.daemonREPL(ctx, cfg.N); err != nil {
		fail("daemon repl", err)
	}
	if res.Daemon.Mismatches > 0 {
		fail("daemon repl", fmt.Errorf("%d replies were not the expected output", res.Daemon.Mismatches))
	}
	progress("ingest throughput")
	if res.Ingest, err = rn.ingest(ctx, cfg.Size); err != nil {
		fail("ingest", err)
	}
	for _, in := range res.Ingest {
		if err := gapError(in); err != nil {
			fail("ingest", err)
		}
	}
	progress("ingest budget pairs")
	if res.Pairs, err = rn.ingestPairs(ctx, cfg.Size, pairRuns); err != nil {
		fail("ingest pairs", err)
	}
	progress("seq 1 3000000 on a PTY")
	if res.Seq, err = rn.seq(ctx, seqN, pairRuns); err != nil {
		fail("seq", err)
	}
	return res
}

// RunREPL measures only Run's REPL round trips, n = cfg.N per row.
func RunREPL(ctx context.Context, cfg Config) (REPL, error) {
	return newRunner(cfg).repl(ctx, cfg.N)
}

// newRunner measures cfg.Exe (default: this executable).
func newRunner(cfg Config) *runner {
	if cfg.Exe == "" {
		cfg.Exe, _ = os.Executable()
	}
	return &runner{exe: cfg.Exe, version: cfg.Version, env: cfg.Env}
}

// Print writes the results as tables.
func (r *Results) Print(w io.Writer) {
	e := r.Env
	fmt.Fprintf(w, "agentty bench — reproduce with: %s\n", r.Command)
	fmt.Fprintf(w, "agentty %s, %s, %s, linux %s, %d CPU (%s), %s\n", e.Agentty, e.Go, e.OS, e.Kernel, e.CPUs, e.CPU, e.Python)
	if e.Build != "" {
		fmt.Fprintf(w, "binary built %s\n", e.Build)
	}
	fmt.Fprintln(w)
	if r.Scale != nil {
		r.Scale.print(w)
		r.printFailed(w)
		return
	}
	if r.Verdicts != nil {
		r.Verdicts.print(w)
		r.printFailed(w)
		return
	}
	if r.Deaf != nil {
		r.Deaf.print(w)
		r.printFailed(w)
		return
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "REPL round trip (ms)\tn\tmedian\tp95\tp99\tmin\tmax\t")
	row := func(name string, l Latency) {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", name, l.Count, l.MedianMs, l.P95Ms, l.P99Ms, l.MinMs, l.MaxMs)
	}
	overhead := func(name string, median, p95 float64) {
		fmt.Fprintf(tw, "%s\t\t%.2f\t%.2f\t\t\t\t\n", name, median, p95)
	}
	row("agentty send_input, pty (python3 -q)", r.REPL.PTY)
	row("direct pty, no agentty", r.REPL.Direct)
	overhead("agentty overhead (pty − direct)", r.REPL.OverheadMedianMs, r.REPL.OverheadP95Ms)
	row("agentty send_input, pty, raw JSON-RPC client", r.REPL.PTYRaw)
	overhead("... without the SDK client (raw − direct)", r.REPL.RawOverheadMedianMs, r.REPL.RawOverheadP95Ms)
	row("agentty send_input, pipe (python3 -i -q)", r.REPL.Pipe)
	row("direct pipes, no agentty", r.REPL.DirectPipe)
	overhead("agentty overhead (pipe − direct)", r.REPL.PipeOverheadMedianMs, r.REPL.PipeOverheadP95Ms)
	fmt.Fprintf(tw, "reply mismatches\t\t%d\t\t\t\t\t\n", r.REPL.Mismatches)
	tw.Flush()
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "REPL round trip, pty (ms), alternating\tn\tmedian\tp95\tp99\tmin\tmax\t")
	row("serve -standalone", r.Daemon.Standalone)
	row("serve through the daemon (relay + socket)", r.Daemon.Daemon)
	fmt.Fprintf(tw, "relay overhead (daemon − standalone)\t\t%.2f\t%.2f\t\t\t\t\n", r.Daemon.OverheadMedianMs, r.Daemon.OverheadP95Ms)
	tw.Flush()
	fmt.Fprintf(w, "(VmRSS: the relaying serve %d KiB per client; the daemon with its one session %d KiB)\n\n", r.Daemon.RelayKiB, r.Daemon.DaemonKiB)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Ingest\tprogram bytes\tcounted bytes\tseconds\tMB/s\tserver CPU s\tdisk bytes\twrite amp.\tgap bytes\t")
	for _, in := range r.Ingest {
		counted, cpu := "-", "-"
		if in.Counted > 0 {
			counted = fmt.Sprint(in.Counted)
		}
		if in.ServerCPU > 0 {
			cpu = fmt.Sprintf("%.2f", in.ServerCPU)
		}
		disk, amp, gap := "-", "-", "-"
		if in.DiskBytes > 0 {
			disk, amp, gap = fmt.Sprint(in.DiskBytes), fmt.Sprintf("%.3f", in.WriteAmp), fmt.Sprint(in.GapBytes)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.3f\t%.0f\t%s\t%s\t%s\t%s\t\n", in.Name, in.Bytes, counted, in.Seconds, in.MBps, cpu, disk, amp, gap)
	}
	tw.Flush()
	fmt.Fprintln(w, "(MB/s = program bytes / 1e6 / seconds; agentty rows time start_process until the session is exited with")
	fmt.Fprintln(w, " every byte counted; server CPU over the same span, at the clock tick's 10 ms; a PTY turns each \\n into \\r\\n,")
	fmt.Fprintln(w, " so it delivers more bytes than the program wrote)")
	if len(r.Pairs) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "Ingest budget pairs (interleaved)\truns\tmedian s\tbaseline\tmedian s\t% of it\t")
		for _, p := range r.Pairs {
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%s\t%.3f\t%.1f\t\n", p.Name, p.Runs, p.Secs, p.Base, p.BaseSecs, p.Percent)
		}
		tw.Flush()
	}
	if r.Seq.N > 0 {
		fmt.Fprintf(w, "seq 1 %d on a PTY (%d bytes), start -> exit seen, median of %d interleaved pairs: agentty %.3f s, bare PTY %.3f s (%.2fx)\n",
			r.Seq.N, r.Seq.Bytes, r.Seq.Runs, r.Seq.AgenttySecs, r.Seq.BareSecs, r.Seq.TimesBarePTY)
	}
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Server memory (VmRSS)\tKiB\t")
	fmt.Fprintf(tw, "idle, 1.5 s after initialize\t%d\t\n", r.Memory.IdleKiB)
	fmt.Fprintf(tw, "idle again after one session\t%d\t\n", r.Memory.WarmKiB)
	fmt.Fprintf(tw, "with %d idle cat sessions (pty)\t%d\t\n", r.Memory.Sessions, r.Memory.LoadedKiB)
	fmt.Fprintf(tw, "with %d\t%d\t\n", 2*r.Memory.Sessions, r.Memory.DoubleKiB)
	fmt.Fprintf(tw, "per session (the second %d)\t%.1f\t\n", r.Memory.Sessions, r.Memory.PerSessionKiB)
	fmt.Fprintf(tw, "all %d deleted\t%d\t\n", 2*r.Memory.Sessions, r.Memory.AfterDeleteKiB)
	tw.Flush()
	fmt.Fprintf(w, "(idle: %d KiB anonymous (RssAnon: heap, stacks: this server's own), the rest the binary's file pages, shared;\n after one session %d KiB anonymous)\n", r.Memory.IdleAnonKiB, r.Memory.WarmAnonKiB)
	fmt.Fprintf(w, "guard process: VmRSS %d KiB, of it %d KiB its own (RssAnon)\n", r.Memory.GuardKiB, r.Memory.GuardAnonKiB)
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Cold start: launch serve → tools/list (ms)\tn\tmedian\tmin\tmax\t")
	fmt.Fprintf(tw, "agentty serve over stdio\t%d\t%.1f\t%.1f\t%.1f\t\n", r.Cold.Count, r.Cold.MedianMs, r.Cold.MinMs, r.Cold.MaxMs)
	tw.Flush()
	fmt.Fprintf(w, "(cold start: median of %d launches, each until the tools/list reply arrived)\n", r.Cold.Count)
	fmt.Fprintln(w)
	r.printBudgets(w)
	r.printFailed(w)
}

func (r *Results) printFailed(w io.Writer) {
	if len(r.Failed) > 0 {
		fmt.Fprintf(w, "\nFAILED: %s\n", strings.Join(r.Failed, "; "))
	}
}

func environment(version, exe string) Env {
	e := Env{Agentty: version, Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(),
		Build: buildMode(exe)}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				e.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if out, err := exec.Command("python3", "--version").Output(); err == nil {
		e.Python = strings.TrimSpace(string(out))
	}
	return e
}

// buildMode reads how exe was built from its build information.
func buildMode(exe string) string {
	bi, err := buildinfo.ReadFile(exe)
	if err != nil {
		return ""
	}
	for _, st := range bi.Settings {
		if st.Key == "CGO_ENABLED" {
			if st.Value == "0" {
				return "static (CGO_ENABLED=0)"
			}
			return "with cgo (CGO_ENABLED=1): idle RSS about 6 MiB more than a static build"
		}
	}
	return ""
}
