package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/agentty/agentty/internal/bench"
)

// verdictRuns is -verdicts' default -n: each of its eight cases runs that
// often per verdict, the prompts one at a time.
const verdictRuns = 20

// flagSet reports whether the command line gave flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// runBench runs "agentty bench": it drives a real "agentty serve" over stdio
// exactly as an MCP client does and prints round-trip latency, ingest
// throughput, server memory and cold-start time.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := bench.Config{Version: version, Progress: stderr}
	var asJSON bool
	fs.IntVar(&cfg.N, "n", 200, "REPL round trips per mode")
	fs.StringVar(&cfg.SizeText, "size", "200MB", "bytes each ingest run produces (e.g. 200MB, 64MiB)")
	fs.IntVar(&cfg.Sessions, "sessions", 100, "idle sessions started for the memory measurement")
	fs.IntVar(&cfg.Scale, "scale", 0, "measure only this many sessions at once instead (half PTY python3 REPLs, half pipe cat), e.g. 1000")
	fs.BoolVar(&cfg.Deaf, "deaf", false, "measure only a client that reads no reply (issue 36), standalone and through a daemon of its own")
	fs.BoolVar(&cfg.Verdicts, "verdicts", false, "measure only the awaiting-input verdicts, exact and inferred: right, false awaiting, prompt→verdict latency; -n runs per case (default 20)")
	fs.StringVar(&cfg.Exe, "exe", "", "measure this agentty binary's serve instead of this one's (e.g. an older build)")
	fs.BoolVar(&asJSON, "json", false, "also print the results as JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	size, err := parseBytes(cfg.SizeText)
	if err != nil {
		fmt.Fprintf(stderr, "agentty bench: -size: %v\n", err)
		return 2
	}
	if cfg.N < 1 || cfg.Sessions < 1 || cfg.Scale < 0 || cfg.Scale == 1 {
		fmt.Fprintln(stderr, "agentty bench: -n and -sessions must be at least 1, -scale at least 2")
		return 2
	}
	cfg.Size = size
	if cfg.Verdicts && !flagSet(fs, "n") {
		cfg.N = verdictRuns
	}
	if _, err := exec.LookPath("python3"); err != nil {
		fmt.Fprintln(stderr, "agentty bench: python3 is needed for the REPL round trips:", err)
		return 1
	}

	// The whole default run takes well under a minute; the bound only stops
	// a wedged server from hanging the bench forever.
	// -scale waits up to a minute twice for the server to give back.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute+time.Duration(cfg.Scale)*100*time.Millisecond)
	defer cancel()
	res := bench.Run(ctx, cfg)
	res.Print(stdout)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
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
