package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentty/agentty/internal/daemon"
)

// The deaf client of issue 36: it stops reading its stdout and sends
// deafBurst get_history calls (deafArgs) every deafEvery, for at most
// deafFlood or until its serve no longer takes them.
const (
	deafBurst = 50
	deafEvery = 200 * time.Millisecond
	deafFlood = 20 * time.Second
	// deafWait bounds the wait, from the first request, for the server to
	// cut the client off once the flood is over.
	deafWait = 40 * time.Second
	// deafCapKiB stops the flood of a server that grows without bound
	// (the build before the bounds reached 4.7 GB).
	deafCapKiB = 2 << 20
	// deafSample is how often the server's RSS is read.
	deafSample = 50 * time.Millisecond
	// The healthy client: an echo round trip to cat every healthyEvery,
	// healthyUnloaded of them before the flood.
	healthyEvery    = 20 * time.Millisecond
	healthyUnloaded = 200
	// deafProtocol is what both raw clients speak: a version with
	// initialize, which the builds before and after the bounds both take.
	deafProtocol = "2025-06-18"
	// deafCutLine is what a server logs when it cuts such a client off.
	deafCutLine = "client is not reading its replies: disconnected"
)

// deafHistoryArgv is the session get_history reads: 26-byte lines, so
// 10,000 of them are over max_bytes and each reply is 256 KiB.
var deafHistoryArgv = []string{"seq", "-f", "%025g", "1", "200000"}

func deafArgs(sid string) map[string]any {
	return map[string]any{"session_id": sid, "lines": 10000, "max_bytes": 262144}
}

// deafClient is a rawClient on pipes of its own, so its writes can have
// a deadline: a serve that no longer reads must not block the flood.
type deafClient struct {
	*rawClient
	stdin  *os.File
	stdout *os.File
	exited chan struct{} // closed once serve has exited
	exitAt time.Time     // set before exited closes
}

func (rn *runner) startDeaf(cmd *exec.Cmd) (*deafClient, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	d := &deafClient{rawClient: &rawClient{cmd: cmd, in: inW, out: bufio.NewReaderSize(outR, 1<<20)},
		stdin: inW, stdout: outR, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		d.exitAt = time.Now()
		close(d.exited)
	}()
	if err := d.open(deafProtocol, rn.version); err != nil {
		d.kill()
		return nil, err
	}
	return d, nil
}

// kill ends the client's serve and closes its pipes; idempotent.
func (d *deafClient) kill() {
	_ = d.cmd.Process.Kill()
	<-d.exited
	d.stdin.Close()
	d.stdout.Close()
}

func (d *deafClient) gone() bool {
	select {
	case <-d.exited:
		return true
	default:
		return false
	}
}

// flood sends the deaf client's requests, never reading, until stop
// closes or serve fails a write other than by its deadline (it went
// away). first receives the time of the first request written.
func (d *deafClient) flood(sid string, stop <-chan struct{}, first chan<- time.Time) int {
	sent := 0
	tick := time.NewTicker(deafEvery)
	defer tick.Stop()
	for {
		for range deafBurst {
			d.id++
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": d.id, "method": "tools/call",
				"params": map[string]any{"name": "get_history", "arguments": deafArgs(sid)}})
			_ = d.stdin.SetWriteDeadline(time.Now().Add(deafEvery))
			if _, err := d.stdin.Write(append(b, '\n')); err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					break // not taken: the next burst tries again
				}
				return sent
			}
			if sent == 0 {
				first <- time.Now()
			}
			sent++
		}
		select {
		case <-stop:
			return sent
		case <-tick.C:
		}
	}
}

// historySession starts deafHistoryArgv through c and waits until
// get_history gives a reply of at least 200 KiB; it returns the session
// and that reply's size on the wire.
func historySession(ctx context.Context, c *rawClient) (string, int, error) {
	var st struct {
		SessionID string `json:"session_id"`
	}
	if err := c.call("start_process", map[string]any{"argv": deafHistoryArgv, "mode": "pipe"}, &st); err != nil {
		return "", 0, err
	}
	for {
		b, err := c.request("tools/call", map[string]any{"name": "get_history", "arguments": deafArgs(st.SessionID)})
		if err != nil {
			return "", 0, err
		}
		if len(b) >= 200<<10 {
			return st.SessionID, len(b), nil
		}
		if ctx.Err() != nil {
			return "", 0, fmt.Errorf("get_history never reached 200 KiB (last %d bytes)", len(b))
		}
		time.Sleep(100 * time.Millisecond) // the session's output has no event to wait on here
	}
}

// healthy is the other client: echo round trips to a cat on pipes.
type healthy struct {
	c   *rawClient
	sid string
	n   int // round trips so far, for unique tokens
	bad int // replies that were not the token
}

func newHealthy(c *rawClient) (*healthy, error) {
	var st struct {
		SessionID string `json:"session_id"`
		Reason    string `json:"reason"`
	}
	if err := c.call("start_process", map[string]any{"argv": []string{"cat"}, "mode": "pipe"}, &st); err != nil {
		return nil, err
	}
	if st.Reason != "awaiting_input" {
		return nil, fmt.Errorf("start_process cat returned %q, want awaiting_input", st.Reason)
	}
	return &healthy{c: c, sid: st.SessionID}, nil
}

// rounds makes round trips every healthyEvery until it made max (max > 0)
// or stop closes.
func (h *healthy) rounds(max int, stop <-chan struct{}) ([]time.Duration, error) {
	var ds []time.Duration
	tick := time.NewTicker(healthyEvery)
	defer tick.Stop()
	for max <= 0 || len(ds) < max {
		h.n++
		token := fmt.Sprintf("healthy-%d", h.n)
		var r struct {
			Output string `json:"output"`
		}
		t0 := time.Now()
		err := h.c.call("send_input", map[string]any{"session_id": h.sid, "text": token, "enter": true, "timeout_ms": 30000}, &r)
		ds = append(ds, time.Since(t0))
		if err != nil {
			return ds, err
		}
		if r.Output != token+"\n" {
			h.bad++
		}
		select {
		case <-stop:
			return ds, nil
		case <-tick.C:
		}
	}
	return ds, nil
}

// deafRun measures one server kind: "serve -standalone", whose only
// client is the deaf one, or the daemon, with a healthy client beside it.
func (rn *runner) deafRun(ctx context.Context, viaDaemon bool) (DeafRun, error) {
	r := DeafRun{Server: "serve -standalone"}
	dir, err := os.MkdirTemp("", "agentty-bench-deaf-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	logPath := filepath.Join(dir, "deaf-serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return r, err
	}
	defer logFile.Close()

	var deaf *deafClient
	var h *healthy
	var sid string
	var server int
	var before []time.Duration // the healthy client's round trips before the flood
	if viaDaemon {
		r.Server = "daemon"
		socket := filepath.Join(dir, "agentty.sock")
		serve := func() *exec.Cmd {
			cmd := exec.Command(rn.exe, "serve", "-log-level", "warn", "-no-store", "-idle", "0")
			cmd.Env = append(append(os.Environ(), rn.env...), "AGENTTY_STANDALONE=", "AGENTTY_SOCKET="+socket, "XDG_STATE_HOME="+dir)
			return cmd
		}
		cmd := serve()
		cmd.Stderr = os.Stderr
		c, err := rn.startRawCommand(cmd, deafProtocol)
		if err != nil {
			return r, fmt.Errorf("serve through the daemon: %w", err)
		}
		defer c.close()
		stopKill := context.AfterFunc(ctx, func() { _ = c.cmd.Process.Kill() })
		defer stopKill()
		st, err := daemon.GetStatus(ctx, socket)
		if err != nil {
			return r, err
		}
		server = st.PID
		defer stopDaemon(st.PID)
		if h, err = newHealthy(c); err != nil {
			return r, err
		}
		if sid, r.ReplyBytes, err = historySession(ctx, c); err != nil {
			return r, err
		}
		time.Sleep(settleWait) // as in repl: timed on a settled server
		if before, err = h.rounds(healthyUnloaded, nil); err != nil {
			return r, fmt.Errorf("healthy client, before the flood: %w", err)
		}
		r.Before = summarizeLatency(before)
		dcmd := serve()
		dcmd.Stderr = logFile
		if deaf, err = rn.startDeaf(dcmd); err != nil {
			return r, fmt.Errorf("deaf client: %w", err)
		}
	} else {
		cmd, err := rn.serveCommand()
		if err != nil {
			return r, err
		}
		cmd.Stderr = logFile
		if deaf, err = rn.startDeaf(cmd); err != nil {
			return r, err
		}
		server = cmd.Process.Pid
		if sid, r.ReplyBytes, err = historySession(ctx, deaf.rawClient); err != nil {
			deaf.kill()
			return r, err
		}
		time.Sleep(settleWait)
	}
	defer deaf.kill()
	stopKill := context.AfterFunc(ctx, func() { _ = deaf.cmd.Process.Kill() })
	defer stopKill()
	if r.IdleKiB, r.IdleAnonKiB, err = benchResident(server); err != nil {
		return r, err
	}
	cut := func() bool {
		if !viaDaemon {
			return deaf.gone()
		}
		b, _ := os.ReadFile(filepath.Join(dir, "agentty", "daemon.log"))
		return strings.Contains(string(b), deafCutLine)
	}

	stop := make(chan struct{})
	first := make(chan time.Time, 1)
	sent := make(chan int, 1)
	go func() { sent <- deaf.flood(sid, stop, first) }()
	var t0 time.Time
	select {
	case t0 = <-first:
	case n := <-sent:
		close(stop)
		return r, fmt.Errorf("the deaf client's serve took none of its requests (%d sent)", n)
	}
	type loaded struct {
		ds  []time.Duration
		err error
	}
	load := make(chan loaded, 1)
	if h != nil {
		go func() {
			ds, err := h.rounds(0, stop)
			load <- loaded{ds, err}
		}()
	}
	flooding := true
	endFlood := func() {
		if flooding {
			close(stop)
			r.Sent = <-sent
			r.FloodSeconds = time.Since(t0).Seconds()
			flooding = false
		}
	}
	defer endFlood()
	tick := time.NewTicker(deafSample)
	defer tick.Stop()
	for {
		since := time.Since(t0)
		if rss, anon, err := benchResident(server); err == nil {
			r.PeakKiB, r.PeakAnonKiB = max(r.PeakKiB, rss), max(r.PeakAnonKiB, anon)
			if rss > deafCapKiB {
				r.OverCapSeconds = since.Seconds()
			}
		}
		if r.CutSeconds == 0 && cut() {
			r.CutSeconds = since.Seconds()
		}
		if r.ExitSeconds == 0 && deaf.gone() {
			r.ExitSeconds = deaf.exitAt.Sub(t0).Seconds()
		}
		if flooding && (deaf.gone() || since >= deafFlood || r.OverCapSeconds > 0) {
			endFlood()
		}
		if r.OverCapSeconds > 0 || r.CutSeconds > 0 && deaf.gone() || since >= deafWait || ctx.Err() != nil {
			break
		}
		<-tick.C
	}
	endFlood()
	if h != nil {
		l := <-load
		r.Loaded = summarizeLatency(l.ds)
		if l.err != nil {
			return r, fmt.Errorf("healthy client, during the flood: %w", l.err)
		}
	}
	if !viaDaemon {
		if r.CutSeconds > 0 {
			b, _ := os.ReadFile(logPath)
			r.Logged = strings.Contains(string(b), deafCutLine)
		}
		return r, nil
	}
	b, _ := os.ReadFile(filepath.Join(dir, "agentty", "daemon.log"))
	r.Logged = strings.Contains(string(b), deafCutLine)

	// The deaf client is killed; the daemon should give back what it held.
	deaf.kill()
	killed := time.Now()
	for _, at := range []struct {
		after     time.Duration
		rss, anon *int64
	}{{5 * time.Second, &r.After5KiB, &r.After5AnonKiB}, {15 * time.Second, &r.After15KiB, &r.After15AnonKiB}} {
		select {
		case <-time.After(time.Until(killed.Add(at.after))):
		case <-ctx.Done():
			return r, ctx.Err()
		}
		if *at.rss, *at.anon, err = benchResident(server); err != nil {
			return r, err
		}
	}
	// The healthy client once the other is gone: with the round trips
	// before, a baseline from both sides of the flood, which the
	// machine's other load moves less than one taken on one side only.
	after, err := h.rounds(healthyUnloaded, nil)
	if err != nil {
		return r, fmt.Errorf("healthy client, after: %w", err)
	}
	r.After = summarizeLatency(after)
	r.Unloaded = summarizeLatency(append(before, after...))
	r.HealthyMismatches = h.bad
	if r.HealthyMismatches > 0 {
		return r, fmt.Errorf("%d healthy round trips did not answer their own token", r.HealthyMismatches)
	}
	if r.Unloaded.P99Ms > 0 {
		r.P99Ratio = r.Loaded.P99Ms / r.Unloaded.P99Ms
	}
	return r, nil
}
