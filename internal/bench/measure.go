package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentty/agentty/internal/toolcall"
)

// settleWait is how long after its start a server has settled: a second
// after it began (server.startSettle) it gives back its start's free heap,
// drops the binary's pages and goes down to one CPU until there is bulk
// work (internal/procs).
const settleWait = 1500 * time.Millisecond

// returnWait is how long after sessions were deleted a server has given
// their memory back: it looks every 5 s (server.memoryCheck), then
// collects, returns the free pages and drops the binary's.
const returnWait = 6 * time.Second

// call invokes a tool, treating a tool error as an error.
var call = toolcall.Checked

// runner launches the measured "agentty serve" processes.
type runner struct {
	exe     string   // the agentty binary
	version string   // reported as the client's version
	env     []string // added to the server's environment
}

// Latency summarises a set of timings in milliseconds.
type Latency struct {
	Count    int     `json:"count"`
	MedianMs float64 `json:"median_ms"`
	P95Ms    float64 `json:"p95_ms"`
	P99Ms    float64 `json:"p99_ms"`
	MinMs    float64 `json:"min_ms"`
	MaxMs    float64 `json:"max_ms"`
}

func summarizeLatency(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	// Nearest rank: the smallest sample with at least p of the samples at
	// or below it, so p99 of 200 samples is the 198th, a value really seen.
	rank := func(p float64) float64 {
		i := max(int(math.Ceil(p*float64(len(s))))-1, 0)
		return benchMs(s[i])
	}
	return Latency{Count: len(s), MedianMs: rank(0.5), P95Ms: rank(0.95), P99Ms: rank(0.99), MinMs: benchMs(s[0]), MaxMs: benchMs(s[len(s)-1])}
}

func benchMs(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// server launches "agentty serve" over stdio as an MCP client
// application would, and returns the server's *exec.Cmd so its memory can
// be read from /proc.
func (rn *runner) server(ctx context.Context, extra ...string) (*mcp.ClientSession, *exec.Cmd, error) {
	cmd, err := rn.serveCommand(extra...)
	if err != nil {
		return nil, nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agentty-bench", Version: rn.version}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, err
	}
	return cs, cmd, nil
}

// serveCommand is the "agentty serve" a measurement runs, over stdio,
// with extra flags.
func (rn *runner) serveCommand(extra ...string) (*exec.Cmd, error) {
	if rn.exe == "" {
		return nil, errors.New("no agentty binary to measure")
	}
	// Measurements run without the transcript store unless one names a
	// data directory: nothing of a bench lands in the user's store.
	if !slices.Contains(extra, "-data-dir") {
		extra = append([]string{"-no-store"}, extra...)
	}
	cmd := exec.Command(rn.exe, append([]string{"serve", "-standalone", "-log-level", "warn"}, extra...)...)
	cmd.Stderr = os.Stderr
	if len(rn.env) > 0 {
		cmd.Env = append(os.Environ(), rn.env...)
	}
	return cmd, nil
}

// coldStart times launching "agentty serve" until its tools/list
// answer arrives: what a client waits for before it can use any tool.
// It also returns the size of the tools/list result as JSON.
func (rn *runner) coldStart(ctx context.Context, runs int) (Latency, int, error) {
	var ds []time.Duration
	size := 0
	for range runs {
		t0 := time.Now()
		cs, _, err := rn.server(ctx)
		if err != nil {
			return Latency{}, 0, err
		}
		tl, err := cs.ListTools(ctx, nil)
		d := time.Since(t0)
		cs.Close()
		if err != nil {
			return Latency{}, 0, err
		}
		if len(tl.Tools) == 0 {
			return Latency{}, 0, errors.New("tools/list returned no tools")
		}
		if b, err := json.Marshal(tl); err == nil {
			size = len(b)
		}
		ds = append(ds, d)
	}
	return summarizeLatency(ds), size, nil
}

// memory reads the server's resident memory idle, idle again after one
// session, with n and with 2n idle sessions, and after those are deleted.
func (rn *runner) memory(ctx context.Context, n int) (Memory, error) {
	m := Memory{Sessions: n}
	cs, cmd, err := rn.server(ctx, "-max-sessions", strconv.Itoa(2*n+8))
	if err != nil {
		return m, err
	}
	defer cs.Close()
	pid := cmd.Process.Pid
	// Idle means after the start settled: the server gives back its
	// start's free heap a second after it began (server.startSettle).
	time.Sleep(settleWait) // no event tells when that happened
	if m.IdleKiB, m.IdleAnonKiB, err = benchResident(pid); err != nil {
		return m, err
	}
	// One session started and deleted first: what it leaves once the
	// server gave its memory back is kept by any server that was used.
	var first struct {
		SessionID string `json:"session_id"`
	}
	if _, err := call(ctx, cs, "start_process", map[string]any{"argv": []string{"cat"}, "mode": "pty", "timeout_ms": 0}, &first); err != nil {
		return m, err
	}
	if err := endSessions(ctx, cs, []string{first.SessionID}); err != nil {
		return m, err
	}
	time.Sleep(returnWait) // no event tells when that happened
	if m.WarmKiB, m.WarmAnonKiB, err = benchResident(pid); err != nil {
		return m, err
	}
	// Two batches of n: the first also maps the code sessions run (the
	// server drops the binary's pages when idle, exemap), the second costs
	// only what a session itself holds.
	ids := make([]string, 0, 2*n)
	for batch := range 2 {
		for range n {
			var r struct {
				SessionID string `json:"session_id"`
			}
			args := map[string]any{"argv": []string{"cat"}, "mode": "pty", "timeout_ms": 0}
			if _, err := call(ctx, cs, "start_process", args, &r); err != nil {
				return m, err
			}
			ids = append(ids, r.SessionID)
		}
		rss, err := benchRSSKiB(pid)
		if err != nil {
			return m, err
		}
		if batch == 0 {
			m.LoadedKiB = rss
			if m.GuardKiB, m.GuardAnonKiB, err = guardMemory(pid); err != nil {
				return m, err
			}
		} else {
			m.DoubleKiB = rss
		}
	}
	m.PerSessionKiB = float64(m.DoubleKiB-m.LoadedKiB) / float64(n)
	if err := endSessions(ctx, cs, ids); err != nil {
		return m, err
	}
	// Memory must follow the work: within 20 % of idle within a minute.
	t0 := time.Now()
	for {
		if m.AfterDeleteKiB, err = benchRSSKiB(pid); err != nil {
			return m, err
		}
		m.ReturnSeconds = time.Since(t0).Seconds()
		if m.AfterDeleteKiB <= m.IdleKiB*12/10 || m.ReturnSeconds >= 60 {
			return m, nil
		}
		time.Sleep(500 * time.Millisecond) // RSS has no event to wait on
	}
}

// endSessions terminates and deletes the sessions ids.
func endSessions(ctx context.Context, cs *mcp.ClientSession, ids []string) error {
	for _, id := range ids {
		var info struct {
			State string `json:"state"`
		}
		if _, err := call(ctx, cs, "terminate_process", map[string]any{"session_id": id, "grace_ms": 1000}, &info); err != nil {
			return err
		}
		if info.State != "exited" {
			return fmt.Errorf("session %s is %s after terminate_process, want exited", id, info.State)
		}
		if _, err := call(ctx, cs, "delete_session", map[string]any{"session_id": id}, nil); err != nil {
			return err
		}
	}
	return nil
}

// repl measures send_input round trips through agentty in PTY and pipe
// mode, and the same exchange directly on a PTY for reference.
func (rn *runner) repl(ctx context.Context, n int) (REPL, error) {
	var r REPL
	cs, _, err := rn.server(ctx)
	if err != nil {
		return r, err
	}
	defer cs.Close()
	// Round trips are timed on a settled server: the settle's collection
	// and the pages it drops would land among them, and it is what every
	// call after the first second meets.
	time.Sleep(settleWait) // no event tells when that happened

	// PTY: the reply must be exactly the value and the next prompt; the
	// echo of the typed line is left out by send_input.
	ds, bad, err := agenttyRoundTrips(ctx, cs, n, "pty", []string{"python3", "-q"}, func(out, v string) bool {
		return out == v+"\n>>> "
	})
	if err != nil {
		return r, fmt.Errorf("pty: %w", err)
	}
	r.PTY, r.Mismatches = summarizeLatency(ds), bad
	// Pipe: python -i writes the prompt to stderr and the value to stdout
	// in separate writes; merge_stderr gives them one pipe, so the reply is
	// exactly the value and the prompt, in order.
	ds, bad, err = agenttyRoundTrips(ctx, cs, n, "pipe", []string{"python3", "-i", "-q"}, func(out, v string) bool {
		return out == v+"\n>>> "
	})
	if err != nil {
		return r, fmt.Errorf("pipe: %w", err)
	}
	r.Pipe, r.Mismatches = summarizeLatency(ds), r.Mismatches+bad

	// The same requests, protocol version included, without the SDK.
	ds, bad, err = rn.rawRoundTrips(ctx, n, cs.InitializeResult().ProtocolVersion)
	if err != nil {
		return r, fmt.Errorf("pty, raw client: %w", err)
	}
	r.PTYRaw, r.Mismatches = summarizeLatency(ds), r.Mismatches+bad

	ds, bad, err = directPTYRoundTrips(n, 60*time.Second)
	if err != nil {
		return r, fmt.Errorf("direct pty: %w", err)
	}
	r.Direct, r.Mismatches = summarizeLatency(ds), r.Mismatches+bad
	ds, bad, err = directPipeRoundTrips(n, 60*time.Second)
	if err != nil {
		return r, fmt.Errorf("direct pipes: %w", err)
	}
	r.DirectPipe, r.Mismatches = summarizeLatency(ds), r.Mismatches+bad
	r.OverheadMedianMs = r.PTY.MedianMs - r.Direct.MedianMs
	r.OverheadP95Ms = r.PTY.P95Ms - r.Direct.P95Ms
	r.RawOverheadMedianMs = r.PTYRaw.MedianMs - r.Direct.MedianMs
	r.RawOverheadP95Ms = r.PTYRaw.P95Ms - r.Direct.P95Ms
	r.PipeOverheadMedianMs = r.Pipe.MedianMs - r.DirectPipe.MedianMs
	r.PipeOverheadP95Ms = r.Pipe.P95Ms - r.DirectPipe.P95Ms
	return r, nil
}

// agenttyRoundTrips starts argv in mode and times n send_input calls of
// "print(i*7)", counting replies that ok rejects.
func agenttyRoundTrips(ctx context.Context, cs *mcp.ClientSession, n int, mode string, argv []string, ok func(out, want string) bool) ([]time.Duration, int, error) {
	var st struct {
		SessionID string `json:"session_id"`
		Reason    string `json:"reason"`
	}
	if _, err := call(ctx, cs, "start_process", map[string]any{"argv": argv, "mode": mode, "merge_stderr": mode == "pipe"}, &st); err != nil {
		return nil, 0, err
	}
	if st.Reason != "awaiting_input" {
		return nil, 0, fmt.Errorf("start_process returned %q, want awaiting_input", st.Reason)
	}
	defer call(ctx, cs, "delete_session", map[string]any{"session_id": st.SessionID}, nil)
	defer call(ctx, cs, "terminate_process", map[string]any{"session_id": st.SessionID, "force": true}, nil)
	return sendRounds(n, mode, st.SessionID, func(args map[string]any, out any) error {
		_, err := call(ctx, cs, "send_input", args, out)
		return err
	}, ok)
}

// sendRounds times n send_input round trips of "print(i*7)" to session
// sid (timeRounds) through send, counting replies that ok rejects.
func sendRounds(n int, what, sid string, send func(args map[string]any, out any) error, ok func(out, want string) bool) ([]time.Duration, int, error) {
	bad := 0
	ds, err := timeRounds(n, func(i int) error {
		var r struct {
			Output string `json:"output"`
		}
		args := map[string]any{"session_id": sid, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}
		if err := send(args, &r); err != nil {
			return err
		}
		if !ok(r.Output, strconv.Itoa(i*7)) {
			if bad == 0 {
				fmt.Fprintf(os.Stderr, "bench: %s reply %d: got %q, want %d\n", what, i, r.Output, i*7)
			}
			bad++
		}
		return nil
	})
	return ds, bad, err
}

// warmRounds round trips run untimed before the timed ones: a session's
// first calls fault in code and fill caches on both sides.
const warmRounds = 20

// timeRounds runs f(i) for i from 1-warmRounds to n and returns how long
// each of the last n took. Before the first timed one the bench's own
// garbage is collected, as go test -bench does: the client collecting what
// earlier sections left would otherwise land in the timings.
func timeRounds(n int, f func(i int) error) ([]time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for i := 1 - warmRounds; i <= n; i++ {
		if i == 1 {
			runtime.GC()
		}
		t0 := time.Now()
		if err := f(i); err != nil {
			return nil, err
		}
		if i >= 1 {
			ds = append(ds, time.Since(t0))
		}
	}
	return ds, nil
}

// ingestLine is what the ingest pipeline repeats: 37 bytes with the newline.
const ingestLine = "0123456789abcdefghijklmnopqrstuvwxyz"

// ingestPTYBytes is what the pipeline delivers through a PTY: its output
// processing (onlcr) adds a \r before every \n.
func ingestPTYBytes(size int64) int64 { return size + size/int64(len(ingestLine)+1) }

func ingestPipeline(size int64) string {
	return fmt.Sprintf("yes %s | head -c %d", ingestLine, size)
}

// ingest measures how fast agentty takes in output in pipe and PTY
// mode, and how fast the same pipeline runs with no agentty at all.
func (rn *runner) ingest(ctx context.Context, size int64) ([]Ingest, error) {
	var out []Ingest
	for _, v := range []struct{ mode, name, flag string }{
		{"pipe", "agentty pipe mode", ""},
		{"pty", "agentty pty mode", ""},
		// The terminal emulator behind read_screen, turned off: its cost.
		{"pty", "agentty pty mode, -screen=false", "-screen=false"},
	} {
		want := size
		if v.mode == "pty" {
			want = ingestPTYBytes(size)
		}
		in, err := rn.agenttyIngest(ctx, v.mode, size, want, "", v.flag)
		if err != nil {
			return out, fmt.Errorf("%s: %w", v.name, err)
		}
		in.Name = v.name + ", --no-store"
		out = append(out, in)
		if v.flag != "" {
			continue
		}
		in, err = rn.agenttyIngestStore(ctx, v.mode, size, want)
		if err != nil {
			return out, fmt.Errorf("%s with store: %w", v.name, err)
		}
		out = append(out, in)
	}
	raw := exec.CommandContext(ctx, "sh", "-c", ingestPipeline(size)+" >/dev/null")
	t0 := time.Now()
	if err := raw.Run(); err != nil {
		return out, fmt.Errorf("raw pipeline: %w", err)
	}
	out = append(out, ingestRate("program alone, to /dev/null", size, 0, time.Since(t0)))

	in, err := directPTYIngest(size, ingestPTYBytes(size), time.Minute)
	if err != nil {
		return out, fmt.Errorf("raw pipeline on a pty: %w", err)
	}
	out = append(out, in)

	// The same pipeline read through a pipe by this process: the floor for
	// any server that reads a child's output.
	var cw benchCounter
	raw = exec.CommandContext(ctx, "sh", "-c", ingestPipeline(size))
	raw.Stdout = &cw
	t0 = time.Now()
	if err := raw.Run(); err != nil {
		return out, fmt.Errorf("raw pipeline: %w", err)
	}
	d := time.Since(t0)
	if cw.n != size {
		return out, fmt.Errorf("raw pipeline wrote %d bytes, want %d", cw.n, size)
	}
	out = append(out, ingestRate("program alone, read through a pipe", size, cw.n, d))
	return out, nil
}

type benchCounter struct{ n int64 }

func (c *benchCounter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func ingestRate(name string, size, counted int64, d time.Duration) Ingest {
	return Ingest{Name: name, Bytes: size, Counted: counted, Seconds: d.Seconds(), MBps: float64(size) / 1e6 / d.Seconds()}
}

// agenttyIngest runs the pipeline as a session and times it from
// start_process until read_output reports the session exited; the server
// reports exited only after the last output was collected, and the byte
// count is checked against what the program wrote.
func (rn *runner) agenttyIngest(ctx context.Context, mode string, size, want int64, dataDir string, extra ...string) (Ingest, error) {
	return rn.agenttyIngestCommand(ctx, mode, ingestPipeline(size), size, want, dataDir, extra...)
}

// agenttyIngestStore is agenttyIngest with the store on, in a temporary
// data directory removed afterwards.
func (rn *runner) agenttyIngestStore(ctx context.Context, mode string, size, want int64) (Ingest, error) {
	dir, err := os.MkdirTemp("", "agentty-bench-store-")
	if err != nil {
		return Ingest{}, err
	}
	defer os.RemoveAll(dir)
	return rn.agenttyIngest(ctx, mode, size, want, dir)
}

// agenttyIngestCommand is agenttyIngest for any command that writes size
// bytes (want counted by the session).
func (rn *runner) agenttyIngestCommand(ctx context.Context, mode, command string, size, want int64, dataDir string, extra ...string) (Ingest, error) {
	flags := extra
	if dataDir != "" {
		flags = append(flags, "-data-dir", dataDir)
	}
	cs, cmd, err := rn.server(ctx, flags...)
	if err != nil {
		return Ingest{}, err
	}
	defer cs.Close()
	if dataDir != "" {
		// The store opens at its first use (or shortly after the start):
		// open it before the clock starts, which times ingest alone.
		if _, err := call(ctx, cs, "list_sessions", map[string]any{}, nil); err != nil {
			return Ingest{}, err
		}
	}
	var st struct {
		SessionID string `json:"session_id"`
	}
	cpu0, err := ProcessCPU(cmd.Process.Pid)
	if err != nil {
		return Ingest{}, err
	}
	t0 := time.Now()
	if _, err := call(ctx, cs, "start_process", map[string]any{"command": command, "mode": mode, "timeout_ms": 0}, &st); err != nil {
		return Ingest{}, err
	}
	for {
		var r struct {
			State  string `json:"state"`
			Reason string `json:"reason"`
		}
		// One byte per call: the bench measures ingest, not transfer to the client.
		args := map[string]any{"session_id": st.SessionID, "timeout_ms": 60000, "settle_ms": 0, "max_bytes": 1, "overflow": "page"}
		if _, err := call(ctx, cs, "read_output", args, &r); err != nil {
			return Ingest{}, err
		}
		if r.State == "exited" {
			break
		}
		if r.Reason != "timeout" {
			return Ingest{}, fmt.Errorf("read_output returned %q in state %s, want exited or timeout", r.Reason, r.State)
		}
	}
	d := time.Since(t0)
	cpu1, err := ProcessCPU(cmd.Process.Pid)
	if err != nil {
		return Ingest{}, err
	}
	var info struct {
		Bytes    int64 `json:"bytes"`
		ExitCode *int  `json:"exit_code"`
	}
	if _, err := call(ctx, cs, "get_session_info", map[string]any{"session_id": st.SessionID}, &info); err != nil {
		return Ingest{}, err
	}
	if info.Bytes != want {
		return Ingest{}, fmt.Errorf("session counted %d bytes, want %d", info.Bytes, want)
	}
	if info.ExitCode == nil || *info.ExitCode != 0 {
		return Ingest{}, fmt.Errorf("pipeline did not exit 0: %v", info.ExitCode)
	}
	if dataDir == "" {
		res := ingestRate("agentty "+mode+" mode, --no-store", size, info.Bytes, d)
		res.ServerCPU = (cpu1 - cpu0).Seconds()
		return res, nil
	}
	res := ingestRate("agentty "+mode+" mode, store on", size, info.Bytes, d)
	res.ServerCPU = (cpu1 - cpu0).Seconds()
	// Gaps (output the writer could not keep up with) are events.
	var msgs struct {
		Messages []struct {
			Event string `json:"event"`
			Size  int64  `json:"size"`
		} `json:"messages"`
	}
	if _, err := call(ctx, cs, "list_messages", map[string]any{"session_id": st.SessionID, "types": []string{"event"}, "limit": 500}, &msgs); err != nil {
		return res, err
	}
	for _, m := range msgs.Messages {
		if m.Event == "gap" {
			res.GapBytes += m.Size
		}
	}
	// Disk use once the server closed the database (WAL checkpointed).
	cs.Close()
	_ = cmd.Wait()
	res.DiskBytes = dirSize(dataDir)
	res.WriteAmp = float64(res.DiskBytes) / float64(info.Bytes)
	return res, nil
}

// dirSize sums the sizes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// directPTYIngest reads the pipeline's output from a PTY master in this
// process: the kernel's PTY throughput, the floor for agentty's PTY mode.
func directPTYIngest(size, want int64, limit time.Duration) (Ingest, error) {
	d, err := bareRun(ingestPipeline(size), want, limit)
	if err != nil {
		return Ingest{}, err
	}
	return ingestRate("program alone, read through a pty", size, want, d), nil
}
