package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// benchConfig holds the bench flags.
type benchConfig struct {
	N        int
	Size     int64
	SizeText string
	Sessions int
	JSON     bool
}

// benchResults is everything one bench run measured; -json prints it as is,
// so its field names are a stable, machine-readable record of a run.
type benchResults struct {
	Command string         `json:"command"`
	Env     benchEnv       `json:"env"`
	REPL    replBench      `json:"repl"`
	Ingest  []ingestResult `json:"ingest"`
	Memory  memBench       `json:"memory"`
	Cold    benchLatency   `json:"cold_start"`
	Failed  []string       `json:"failures,omitempty"`
}

// benchEnv records what the numbers were measured on; without it they
// cannot be compared between machines.
type benchEnv struct {
	Agentty string `json:"agentty"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Kernel  string `json:"kernel"`
	CPU     string `json:"cpu"`
	CPUs    int    `json:"cpus"`
	Python  string `json:"python"`
}

// replBench is the round-trip section: agentty over a PTY and over pipes,
// and the same round trip done directly on a PTY without agentty.
type replBench struct {
	PTY              benchLatency `json:"agentty_pty"`
	Pipe             benchLatency `json:"agentty_pipe"`
	Direct           benchLatency `json:"direct_pty"`
	OverheadMedianMs float64      `json:"overhead_median_ms"`
	OverheadP95Ms    float64      `json:"overhead_p95_ms"`
	Mismatches       int          `json:"mismatches"`
}

// ingestResult is one throughput measurement.
type ingestResult struct {
	Name    string  `json:"name"`
	Bytes   int64   `json:"program_bytes"`
	Counted int64   `json:"counted_bytes,omitempty"`
	Seconds float64 `json:"seconds"`
	MBps    float64 `json:"mb_per_s"`
	// With the transcript store: bytes on disk after the run, per byte of
	// output, and output the writer could not keep up with.
	DiskBytes int64   `json:"disk_bytes,omitempty"`
	WriteAmp  float64 `json:"write_amplification,omitempty"`
	GapBytes  int64   `json:"gap_bytes,omitempty"`
}

// memBench is the server memory section.
type memBench struct {
	Sessions      int     `json:"sessions"`
	IdleKiB       int64   `json:"rss_idle_kib"`
	LoadedKiB     int64   `json:"rss_with_sessions_kib"`
	PerSessionKiB float64 `json:"per_session_kib"`
}

// bench runs "agentty bench": it drives a real "agentty serve" over stdio
// exactly as an MCP client does and prints round-trip latency, ingest
// throughput, server memory and cold-start time.
func bench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg benchConfig
	fs.IntVar(&cfg.N, "n", 200, "REPL round trips per mode")
	fs.StringVar(&cfg.SizeText, "size", "200MB", "bytes each ingest run produces (e.g. 200MB, 64MiB)")
	fs.IntVar(&cfg.Sessions, "sessions", 100, "idle sessions started for the memory measurement")
	fs.BoolVar(&cfg.JSON, "json", false, "also print the results as JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	size, err := parseBytes(cfg.SizeText)
	if err != nil {
		fmt.Fprintf(stderr, "agentty bench: -size: %v\n", err)
		return 2
	}
	if cfg.N < 1 || cfg.Sessions < 1 {
		fmt.Fprintln(stderr, "agentty bench: -n and -sessions must be at least 1")
		return 2
	}
	cfg.Size = size
	if _, err := exec.LookPath("python3"); err != nil {
		fmt.Fprintln(stderr, "agentty bench: python3 is needed for the REPL round trips:", err)
		return 1
	}

	// The whole default run takes well under a minute; the bound only stops
	// a wedged server from hanging the bench forever.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res := benchResults{
		Command: fmt.Sprintf("agentty bench -n %d -size %s -sessions %d", cfg.N, cfg.SizeText, cfg.Sessions),
		Env:     benchEnvironment(),
	}
	progress := func(what string) { fmt.Fprintf(stderr, "bench: %s...\n", what) }
	fail := func(what string, err error) {
		res.Failed = append(res.Failed, fmt.Sprintf("%s: %v", what, err))
	}

	progress("cold start")
	if res.Cold, err = benchColdStart(ctx, 10); err != nil {
		fail("cold start", err)
	}
	// Memory is measured on a fresh server so the ingest runs' buffers do
	// not count as idle memory.
	progress("server memory")
	if res.Memory, err = benchMemory(ctx, cfg.Sessions); err != nil {
		fail("memory", err)
	}
	progress("REPL round trips")
	if res.REPL, err = benchREPL(ctx, cfg.N); err != nil {
		fail("repl", err)
	}
	if res.REPL.Mismatches > 0 {
		fail("repl", fmt.Errorf("%d replies were not the expected output", res.REPL.Mismatches))
	}
	progress("ingest throughput")
	if res.Ingest, err = benchIngest(ctx, size); err != nil {
		fail("ingest", err)
	}

	printBench(stdout, &res)
	if cfg.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&res); err != nil {
			fmt.Fprintln(stderr, "agentty bench: json:", err)
			return 1
		}
	}
	if len(res.Failed) > 0 {
		for _, f := range res.Failed {
			fmt.Fprintln(stderr, "agentty bench: FAILED:", f)
		}
		return 1
	}
	return 0
}

func printBench(w io.Writer, r *benchResults) {
	e := r.Env
	fmt.Fprintf(w, "agentty bench — reproduce with: %s\n", r.Command)
	fmt.Fprintf(w, "agentty %s, %s, %s, linux %s, %d CPU (%s), %s\n\n", e.Agentty, e.Go, e.OS, e.Kernel, e.CPUs, e.CPU, e.Python)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "REPL round trip (ms)\tn\tmedian\tp95\tp99\tmin\tmax\t")
	row := func(name string, l benchLatency) {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", name, l.Count, l.MedianMs, l.P95Ms, l.P99Ms, l.MinMs, l.MaxMs)
	}
	row("agentty send_input, pty (python3 -q)", r.REPL.PTY)
	row("agentty send_input, pipe (python3 -i -q)", r.REPL.Pipe)
	row("direct pty, no agentty", r.REPL.Direct)
	fmt.Fprintf(tw, "agentty overhead (pty − direct)\t\t%.2f\t%.2f\t\t\t\t\n", r.REPL.OverheadMedianMs, r.REPL.OverheadP95Ms)
	fmt.Fprintf(tw, "reply mismatches\t\t%d\t\t\t\t\t\n", r.REPL.Mismatches)
	tw.Flush()
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Ingest\tprogram bytes\tcounted bytes\tseconds\tMB/s\tdisk bytes\twrite amp.\tgap bytes\t")
	for _, in := range r.Ingest {
		counted := "-"
		if in.Counted > 0 {
			counted = fmt.Sprint(in.Counted)
		}
		disk, amp, gap := "-", "-", "-"
		if in.DiskBytes > 0 {
			disk, amp, gap = fmt.Sprint(in.DiskBytes), fmt.Sprintf("%.3f", in.WriteAmp), fmt.Sprint(in.GapBytes)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.3f\t%.0f\t%s\t%s\t%s\t\n", in.Name, in.Bytes, counted, in.Seconds, in.MBps, disk, amp, gap)
	}
	tw.Flush()
	fmt.Fprintln(w, "(MB/s = program bytes / 1e6 / seconds; agentty rows time start_process until the session is exited with")
	fmt.Fprintln(w, " every byte counted; a PTY turns each \\n into \\r\\n, so it delivers more bytes than the program wrote)")
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Server memory (VmRSS)\tKiB\t")
	fmt.Fprintf(tw, "idle after initialize\t%d\t\n", r.Memory.IdleKiB)
	fmt.Fprintf(tw, "with %d idle cat sessions (pty)\t%d\t\n", r.Memory.Sessions, r.Memory.LoadedKiB)
	fmt.Fprintf(tw, "per session\t%.1f\t\n", r.Memory.PerSessionKiB)
	tw.Flush()
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Cold start: launch serve → tools/list (ms)\tn\tmedian\tmin\tmax\t")
	fmt.Fprintf(tw, "agentty serve over stdio\t%d\t%.1f\t%.1f\t%.1f\t\n", r.Cold.Count, r.Cold.MedianMs, r.Cold.MinMs, r.Cold.MaxMs)
	tw.Flush()
	fmt.Fprintln(w, "(cold start: median of 10 launches, each until the tools/list reply arrived)")
	if len(r.Failed) > 0 {
		fmt.Fprintf(w, "\nFAILED: %s\n", strings.Join(r.Failed, "; "))
	}
}

func benchEnvironment() benchEnv {
	e := benchEnv{Agentty: version, Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU()}
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
