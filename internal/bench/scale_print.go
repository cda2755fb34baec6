package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// runScale is "agentty bench -scale N": the scale measurement alone.
func runScale(ctx context.Context, rn *runner, cfg Config) *Results {
	res := &Results{Command: fmt.Sprintf("agentty bench -scale %d", cfg.Scale), Env: environment(cfg.Version, rn.exe)}
	if cfg.ReturnWithin <= 0 {
		cfg.ReturnWithin = time.Minute
	}
	if cfg.RSSWithin == 0 {
		cfg.RSSWithin = time.Minute
	}
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "bench: %d sessions at once...\n", cfg.Scale)
	}
	sc, err := rn.scale(ctx, cfg.Scale, cfg.ReturnWithin, cfg.RSSWithin)
	sc.LoadAfter = loadAverage()
	res.Scale = &sc
	if err != nil {
		res.Failed = append(res.Failed, fmt.Sprintf("scale: %v", err))
	}
	return res
}

// print writes the scale tables and the budgets beside them.
func (s *Scale) print(w io.Writer) {
	fmt.Fprintf(w, "%d sessions at once: %d PTY (%s) + %d pipe (%s); machine load %.1f → %.1f\n\n",
		s.Sessions, s.PTY, argvText(s.PTYArgv), s.Pipe, argvText(s.PipeArgv), s.LoadBefore, s.LoadAfter)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "send_input round trip, one per session (ms)\tn\tmedian\tp95\tp99\tmin\tmax\t")
	row := func(name string, l Latency) {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", name, l.Count, l.MedianMs, l.P95Ms, l.P99Ms, l.MinMs, l.MaxMs)
	}
	row("all sessions", s.RoundTrip)
	row("pty", s.RoundTripPTY)
	row("pipe", s.RoundTripPipe)
	tw.Flush()
	fmt.Fprintf(w, "(start all: %.1f s, %d calls in flight; list_sessions with all, median of %d: %.1f ms)\n\n", s.StartSeconds, s.Workers, scaleLists, s.ListMs)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Server\tbefore\twith sessions\tafter delete\t")
	fmt.Fprintf(tw, "VmRSS (KiB)\t%d\t%d\t%d\t\n", s.IdleKiB, s.FullKiB, s.AfterDeleteKiB)
	fmt.Fprintf(tw, "of it RssAnon, its own (KiB)\t%d\t%d\t%d\t\n", s.IdleAnonKiB, s.FullAnonKiB, s.AfterAnonKiB)
	fmt.Fprintf(tw, "goroutines\t%d\t%d\t%d\t\n", s.Goroutines.Before, s.Goroutines.Full, s.Goroutines.After)
	fmt.Fprintf(tw, "open descriptors\t%d\t%d\t%d\t\n", s.FDs.Before, s.FDs.Full, s.FDs.After)
	rt := s.Runtime
	fmt.Fprintf(tw, "Go heap in use (KiB)\t%d\t%d\t%d\t\n", rt[0].HeapInuse>>10, rt[1].HeapInuse>>10, rt[3].HeapInuse>>10)
	fmt.Fprintf(tw, "Go stacks (KiB)\t%d\t%d\t%d\t\n", rt[0].StackInuse>>10, rt[1].StackInuse>>10, rt[3].StackInuse>>10)
	fmt.Fprintf(tw, "Go heap free, not returned (KiB)\t%d\t%d\t%d\t\n", (rt[0].HeapIdle-rt[0].HeapReleased)>>10,
		(rt[1].HeapIdle-rt[1].HeapReleased)>>10, (rt[3].HeapIdle-rt[3].HeapReleased)>>10)
	tw.Flush()
	fmt.Fprintf(w, "(per session over idle: %.1f KiB; pipe %.1f KiB, pty %.1f KiB; %.2f goroutines, %.2f descriptors;\n",
		s.PerSessionKiB, s.PerPipeKiB, s.PerPTYKiB, perSession(s.Goroutines, s.Sessions), perSession(s.FDs, s.Sessions))
	fmt.Fprintf(w, " goroutines and descriptors back after %.1f s, RSS after %.1f s)\n\n", s.BackSeconds, s.ReturnSeconds)
	s.printBudgets(w)
}

// argvText is argv with the program's directory left out (the JSON has
// the path that ran).
func argvText(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return strings.Join(append([]string{filepath.Base(argv[0])}, argv[1:]...), " ")
}

func perSession(c Counts, n int) float64 { return float64(c.Full-c.Before) / float64(max(n, 1)) }

// printBudgets writes issue 19's scale budgets beside what this run
// measured.
func (s *Scale) printBudgets(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Budgets (issue 19, scale)\tmeasured\tbudget\tmet\t")
	row := func(name string, got, budget float64, format, unit string) {
		met := "yes"
		if got > budget {
			met = "NO"
		}
		fmt.Fprintf(tw, "%s\t"+format+" %s\t"+format+" %s\t%s\t\n", name, got, unit, budget, unit, met)
	}
	met := "yes"
	if s.Answered != s.Sessions {
		met = "NO"
	}
	fmt.Fprintf(tw, "sessions that answered their own token\t%d\t%d\t%s\t\n", s.Answered, s.Sessions, met)
	row("round trip p99, all sessions there", s.RoundTrip.P99Ms, 50, "%.1f", "ms")
	row("RSS over idle per session", s.PerSessionKiB, 100, "%.1f", "KiB")
	row("  per PTY session", s.PerPTYKiB, 100, "%.1f", "KiB")
	row("goroutines after delete, over before", float64(s.Goroutines.After-s.Goroutines.Before), 0, "%.0f", "")
	row("descriptors after delete, over before", float64(s.FDs.After-s.FDs.Before), 0, "%.0f", "")
	if s.IdleAnonKiB > 0 {
		row("RssAnon after delete, over idle", 100*float64(s.AfterAnonKiB-s.IdleAnonKiB)/float64(s.IdleAnonKiB), 20, "%.1f", "%")
		row("  ... reached after", s.ReturnSeconds, 60, "%.1f", "s")
	}
	tw.Flush()
}
