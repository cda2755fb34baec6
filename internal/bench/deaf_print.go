package bench

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Deaf is the "agentty bench -deaf" section: issue 36's client that stops
// reading its replies and keeps sending get_history calls, against a
// standalone server and against the daemon with a healthy client beside
// it.
type Deaf struct {
	// Exe is the measured binary, Revision its commit (vcs.revision).
	Exe      string    `json:"exe"`
	Revision string    `json:"revision"`
	Runs     []DeafRun `json:"runs"`
	// The machine's 1-minute load average when the run began and ended.
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
}

// DeafRun is one server kind's measurement. Seconds count from the deaf
// client's first request; 0 is "did not happen".
type DeafRun struct {
	Server     string `json:"server"`      // "serve -standalone" or "daemon"
	ReplyBytes int    `json:"reply_bytes"` // one get_history result
	// Server VmRSS and RssAnon before the flood, and their peaks (read
	// every 50 ms) while the deaf client lived.
	IdleKiB     int64 `json:"rss_before_kib"`
	IdleAnonKiB int64 `json:"rss_anon_before_kib"`
	PeakKiB     int64 `json:"rss_peak_kib"`
	PeakAnonKiB int64 `json:"rss_anon_peak_kib"`
	// Sent is how many requests the deaf client got written in
	// FloodSeconds; OverCapSeconds when the server passed 2 GiB, which
	// ends the flood.
	Sent           int     `json:"requests_sent"`
	FloodSeconds   float64 `json:"flood_seconds"`
	OverCapSeconds float64 `json:"over_cap_seconds,omitempty"`
	// CutSeconds is when the server cut the client off (the daemon logged
	// it; a standalone serve exited), Logged whether with the log line;
	// ExitSeconds when the deaf client's serve exited.
	CutSeconds  float64 `json:"cut_off_seconds,omitempty"`
	Logged      bool    `json:"logged"`
	ExitSeconds float64 `json:"serve_exit_seconds,omitempty"`
	// The healthy client (daemon only): a send_input echo round trip to
	// cat every 20 ms, before the flood, during it and after the deaf
	// client was killed (after the 15 s reading); Unloaded is before and
	// after together, the baseline of P99Ratio.
	Before            Latency `json:"healthy_before"`
	Loaded            Latency `json:"healthy_during_flood"`
	After             Latency `json:"healthy_after"`
	Unloaded          Latency `json:"healthy_unloaded"`
	P99Ratio          float64 `json:"p99_ratio"`
	HealthyMismatches int     `json:"healthy_mismatches"`
	// The daemon's VmRSS and RssAnon 5 s and 15 s after the deaf client
	// was killed (a standalone server ends with its client).
	After5KiB      int64 `json:"rss_5s_after_kill_kib,omitempty"`
	After5AnonKiB  int64 `json:"rss_anon_5s_after_kill_kib,omitempty"`
	After15KiB     int64 `json:"rss_15s_after_kill_kib,omitempty"`
	After15AnonKiB int64 `json:"rss_anon_15s_after_kill_kib,omitempty"`
}

// runDeaf is "agentty bench -deaf": the deaf client alone, standalone
// then through the daemon.
func runDeaf(ctx context.Context, rn *runner, cfg Config) *Results {
	res := &Results{Command: "agentty bench -deaf", Env: environment(cfg.Version, rn.exe)}
	d := &Deaf{Exe: rn.exe, Revision: revision(rn.exe), LoadBefore: loadAverage()}
	res.Deaf = d
	for _, viaDaemon := range []bool{false, true} {
		r, err := rn.deafRun(ctx, viaDaemon)
		fmt.Fprintf(cfg.Progress, "bench: deaf client, %s done\n", r.Server)
		d.Runs = append(d.Runs, r)
		if err != nil {
			res.Failed = append(res.Failed, fmt.Sprintf("deaf client, %s: %v", r.Server, err))
		}
	}
	d.LoadAfter = loadAverage()
	return res
}

// revision is exe's commit as its build recorded it ("" when unknown).
func revision(exe string) string {
	bi, err := buildinfo.ReadFile(exe)
	if err != nil {
		return ""
	}
	rev, dirty := "", ""
	for _, st := range bi.Settings {
		switch {
		case st.Key == "vcs.revision":
			rev = st.Value[:min(len(st.Value), 12)]
		case st.Key == "vcs.modified" && st.Value == "true":
			dirty = "+changes"
		}
	}
	return rev + dirty
}

// print writes the deaf client's table and the healthy client's.
func (d *Deaf) print(w io.Writer) {
	fmt.Fprintf(w, "A client that reads no reply (issue 36): %d get_history {lines 10000, max_bytes 262144} every %v, for at most %v;\n",
		deafBurst, deafEvery, deafFlood)
	rev := ""
	if d.Revision != "" {
		rev = " (revision " + d.Revision + ")"
	}
	fmt.Fprintf(w, "measured %s%s; machine load %.1f → %.1f\n\n", d.Exe, rev, d.LoadBefore, d.LoadAfter)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "Server\t%s\t\n", strings.Join(d.column(func(r DeafRun) string { return r.Server }), "\t"))
	rows := []struct {
		name string
		cell func(DeafRun) string
	}{
		{"one reply (bytes)", func(r DeafRun) string { return fmt.Sprint(r.ReplyBytes) }},
		{"VmRSS / RssAnon before (KiB)", func(r DeafRun) string { return fmt.Sprintf("%d / %d", r.IdleKiB, r.IdleAnonKiB) }},
		{"peak during the flood (KiB)", func(r DeafRun) string { return fmt.Sprintf("%d / %d", r.PeakKiB, r.PeakAnonKiB) }},
		{"over 2 GiB (flood stopped)", func(r DeafRun) string { return seconds(r.OverCapSeconds) }},
		{"requests sent", func(r DeafRun) string { return fmt.Sprintf("%d in %.1f s", r.Sent, r.FloodSeconds) }},
		{"cut off by the server", func(r DeafRun) string {
			if r.CutSeconds > 0 && !r.Logged {
				return seconds(r.CutSeconds) + ", not logged"
			}
			return seconds(r.CutSeconds)
		}},
		{"its serve exited", func(r DeafRun) string { return seconds(r.ExitSeconds) }},
		{"5 s after it was killed (KiB)", func(r DeafRun) string { return kib(r.After5KiB, r.After5AnonKiB) }},
		{"15 s after (KiB)", func(r DeafRun) string { return kib(r.After15KiB, r.After15AnonKiB) }},
	}
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t%s\t\n", row.name, strings.Join(d.column(row.cell), "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w, "(seconds from the deaf client's first request; no: not within 40 s, or not before the server passed 2 GiB;")
	fmt.Fprintln(w, " a standalone server ends with its client)")
	for _, r := range d.Runs {
		if r.Unloaded.Count == 0 {
			continue
		}
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "Healthy client, %s: send_input to cat every 20 ms (ms)\tn\tmedian\tp95\tp99\tmax\t\n", r.Server)
		for _, l := range []struct {
			name string
			l    Latency
		}{{"before the flood", r.Before}, {"after (deaf client killed)", r.After}, {"unloaded: before + after", r.Unloaded}, {"during the flood", r.Loaded}} {
			fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t\n", l.name, l.l.Count, l.l.MedianMs, l.l.P95Ms, l.l.P99Ms, l.l.MaxMs)
		}
		met := "yes"
		if r.P99Ratio > 2 || r.P99Ratio == 0 {
			met = "NO"
		}
		fmt.Fprintf(tw, "p99 during / unloaded p99 (issue 36: within 2×)\t\t\t\t%.2f×\t%s\t\n", r.P99Ratio, met)
		tw.Flush()
	}
}

func (d *Deaf) column(cell func(DeafRun) string) []string {
	out := make([]string, len(d.Runs))
	for i, r := range d.Runs {
		out[i] = cell(r)
	}
	return out
}

func seconds(s float64) string {
	if s == 0 {
		return "no"
	}
	return fmt.Sprintf("at %.1f s", s)
}

func kib(rss, anon int64) string {
	if rss == 0 {
		return "-"
	}
	return fmt.Sprintf("%d / %d", rss, anon)
}
