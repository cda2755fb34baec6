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
type SeqRun struct {
	N             int     `json:"n"`
	Bytes         int64   `json:"pty_bytes"`
	AgenttySecs   float64 `json:"agentty_seconds"`
	BareSecs      float64 `json:"bare_pty_seconds"`
	TimesBarePTY  float64 `json:"times_bare_pty"`
	ScreenEnabled bool    `json:"screen"`
}

// seqN is the program of issue 19's start-to-exit measurement.
const seqN = 3000000

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

// seq measures SeqRun for n.
func (rn *runner) seq(ctx context.Context, n int) (SeqRun, error) {
	r := SeqRun{N: n, Bytes: seqPTYBytes(n), ScreenEnabled: true}
	command := "seq 1 " + strconv.Itoa(n)
	in, err := rn.agenttyIngestCommand(ctx, "pty", command, r.Bytes, r.Bytes, "")
	if err != nil {
		return r, fmt.Errorf("agentty: %w", err)
	}
	r.AgenttySecs = in.Seconds
	bare, err := bareRun(command, r.Bytes, time.Minute)
	if err != nil {
		return r, fmt.Errorf("bare pty: %w", err)
	}
	r.BareSecs = bare.Seconds()
	r.TimesBarePTY = r.AgenttySecs / r.BareSecs
	return r, nil
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
	watchdog := time.AfterFunc(limit, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
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

// ingestRatio is in's throughput as a percentage of base's, 0 when either
// is missing.
func (r *Results) ingestRatio(in, base string) float64 {
	var a, b float64
	for _, x := range r.Ingest {
		switch x.Name {
		case in:
			a = x.MBps
		case base:
			b = x.MBps
		}
	}
	if a == 0 || b == 0 {
		return 0
	}
	return 100 * a / b
}

// throughputBudgets are issue 19's throughput rows, each against the
// baseline measured in the same run.
func (r *Results) throughputBudgets(row func(name string, got, budget float64, unit string), atLeast func(name string, got, budget float64, unit string)) {
	if v := r.ingestRatio("agentty pty mode, --no-store", "program alone, read through a pty"); v > 0 {
		atLeast("PTY ingest with screen, of bare PTY", v, 90, "%")
	}
	if v := r.ingestRatio("agentty pipe mode, store on", "agentty pipe mode, --no-store"); v > 0 {
		atLeast("pipe ingest with store, of --no-store", v, 80, "%")
	}
	if r.Seq.TimesBarePTY > 0 {
		row("seq 1 3000000 PTY start->exit, x bare PTY", r.Seq.TimesBarePTY, 1.2, "x")
	}
}
