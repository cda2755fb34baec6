package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// SeqRun times `seq 1 N` on a PTY: through agentty from start_process
// until the session is reported exited with every byte counted, and the
// same program on a bare PTY read by this process until end of output.
// Runs pairs are interleaved (agentty, bare, agentty, ...) and the
// medians compared: one run of either swings by a fifth on a busy
// machine, as much as the budget's margin.
type SeqRun struct {
	N             int       `json:"n"`
	Bytes         int64     `json:"pty_bytes"`
	Runs          int       `json:"runs"`
	AgenttySecs   float64   `json:"agentty_seconds"`  // median
	BareSecs      float64   `json:"bare_pty_seconds"` // median
	AgenttyAll    []float64 `json:"agentty_runs"`
	BareAll       []float64 `json:"bare_pty_runs"`
	TimesBarePTY  float64   `json:"times_bare_pty"` // of the medians
	ScreenEnabled bool      `json:"screen"`
}

// seqN is the program of issue 19's start-to-exit measurement.
const seqN = 3000000

// pairRuns is how many interleaved pairs the budgets' medians (seq,
// ingest pairs) come from.
const pairRuns = 3

// seqPTYBytes is what `seq 1 n` delivers through a PTY: every number, and
// \r\n for its newline.
func seqPTYBytes(n int) int64 {
	var total int64
	for lo, digits := 1, 1; lo <= n; lo, digits = lo*10, digits+1 {
		hi := min(lo*10-1, n)
		total += int64(hi-lo+1) * int64(digits+2)
	}
	return total
}

// seq measures SeqRun for n over runs pairs.
func (rn *runner) seq(ctx context.Context, n, runs int) (SeqRun, error) {
	r := SeqRun{N: n, Bytes: seqPTYBytes(n), Runs: runs, ScreenEnabled: true}
	command := "seq 1 " + strconv.Itoa(n)
	ag, bare, err := interleave(runs, func() (time.Duration, error) {
		in, err := rn.agenttyIngestCommand(ctx, "pty", command, r.Bytes, r.Bytes, "")
		if err != nil {
			return 0, fmt.Errorf("agentty: %w", err)
		}
		return time.Duration(in.Seconds * float64(time.Second)), nil
	}, func() (time.Duration, error) {
		d, err := bareRun(command, r.Bytes, time.Minute)
		if err != nil {
			return 0, fmt.Errorf("bare pty: %w", err)
		}
		return d, nil
	})
	if err != nil {
		return r, err
	}
	for i := range ag {
		r.AgenttyAll = append(r.AgenttyAll, ag[i].Seconds())
		r.BareAll = append(r.BareAll, bare[i].Seconds())
	}
	r.AgenttySecs = summarizeLatency(ag).MedianMs / 1e3
	r.BareSecs = summarizeLatency(bare).MedianMs / 1e3
	r.TimesBarePTY = r.AgenttySecs / r.BareSecs
	return r, nil
}

// interleave times a and b alternately, runs times each (a first), so a
// change in the machine's load falls on both; it stops at the first error.
func interleave(runs int, a, b func() (time.Duration, error)) (as, bs []time.Duration, err error) {
	for range runs {
		d, err := a()
		if err != nil {
			return as, bs, err
		}
		as = append(as, d)
		if d, err = b(); err != nil {
			return as, bs, err
		}
		bs = append(bs, d)
	}
	return as, bs, nil
}

// bareRun runs command on a PTY read by this process until every slave
// end closed, and checks the byte count. pty.Start makes the shell a
// session leader, so its pid is the process group of the whole pipeline;
// the watchdog's kill ends the read. EIO is how a PTY master reports that
// every slave end was closed.
func bareRun(command string, want int64, limit time.Duration) (time.Duration, error) {
	cmd := exec.Command("sh", "-c", command)
	t0 := time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return 0, err
	}
	watchdog := time.AfterFunc(limit, func() { killGroup(cmd.Process) })
	var cw benchCounter
	_, err = io.Copy(&cw, f)
	d := time.Since(t0)
	watchdog.Stop()
	werr := cmd.Wait()
	f.Close()
	if err != nil && !errors.Is(err, syscall.EIO) {
		return 0, err
	}
	if werr != nil {
		return 0, werr
	}
	if cw.n != want {
		return 0, fmt.Errorf("read %d bytes from the pty, want %d", cw.n, want)
	}
	return d, nil
}

// IngestPair is a throughput budget's measurement: the measured variant
// and its baseline run alternately, Runs times each, on the same
// pipeline; Percent is the baseline's median time over the variant's, the
// variant's throughput as a share of the baseline's. A single run of the
// ingest table swings by a quarter from run to run on this kind of
// machine, more than the budgets' margins.
type IngestPair struct {
	Name     string  `json:"name"`
	Base     string  `json:"baseline"`
	Runs     int     `json:"runs"`
	Secs     float64 `json:"median_seconds"`
	BaseSecs float64 `json:"baseline_median_seconds"`
	Percent  float64 `json:"percent_of_baseline"`
}

// ingestPairs measures the two ingest budgets' pairs over runs each.
func (rn *runner) ingestPairs(ctx context.Context, size int64, runs int) ([]IngestPair, error) {
	ptyWant := ingestPTYBytes(size)
	agentty := func(mode string, want int64, store bool) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			var in Ingest
			var err error
			if store {
				in, err = rn.agenttyIngestStore(ctx, mode, size, want)
				if err == nil {
					err = gapError(in)
				}
			} else {
				in, err = rn.agenttyIngest(ctx, mode, size, want, "")
			}
			return time.Duration(in.Seconds * float64(time.Second)), err
		}
	}
	var out []IngestPair
	for _, p := range []struct {
		name, base string
		a, b       func() (time.Duration, error)
	}{
		{"agentty pty mode, --no-store", "program alone, read through a pty", agentty("pty", ptyWant, false),
			func() (time.Duration, error) { return bareRun(ingestPipeline(size), ptyWant, time.Minute) }},
		{"agentty pipe mode, store on", "agentty pipe mode, --no-store", agentty("pipe", size, true), agentty("pipe", size, false)},
	} {
		as, bs, err := interleave(runs, p.a, p.b)
		if err != nil {
			return out, fmt.Errorf("%s against %s: %w", p.name, p.base, err)
		}
		pair := IngestPair{Name: p.name, Base: p.base, Runs: runs,
			Secs: summarizeLatency(as).MedianMs / 1e3, BaseSecs: summarizeLatency(bs).MedianMs / 1e3}
		pair.Percent = 100 * pair.BaseSecs / pair.Secs
		out = append(out, pair)
	}
	return out, nil
}

// gapError refuses a store-on run whose store dropped output (a gap: its
// writer fell behind): a store that keeps less is cheaper, and the budget
// is for one that keeps everything.
func gapError(in Ingest) error {
	if in.GapBytes > 0 {
		return fmt.Errorf("%s: the store dropped %d of %d bytes (a gap: its writer fell behind)", in.Name, in.GapBytes, in.Counted)
	}
	return nil
}

// pairPercent is the named pair's Percent, 0 when it was not measured.
func (r *Results) pairPercent(name string) float64 {
	for _, p := range r.Pairs {
		if p.Name == name {
			return p.Percent
		}
	}
	return 0
}

// throughputBudgets are issue 19's throughput rows, each against the
// baseline measured in the same run.
func (r *Results) throughputBudgets(row func(name string, got, budget float64, unit string), atLeast func(name string, got, budget float64, unit string)) {
	if v := r.pairPercent("agentty pty mode, --no-store"); v > 0 {
		atLeast("PTY ingest with screen, of bare PTY", v, 90, "%")
	}
	if v := r.pairPercent("agentty pipe mode, store on"); v > 0 {
		atLeast("pipe ingest with store, of --no-store", v, 80, "%")
	}
	if r.Seq.TimesBarePTY > 0 {
		row("seq 1 3000000 PTY start->exit, x bare PTY", r.Seq.TimesBarePTY, 1.2, "x")
	}
}
