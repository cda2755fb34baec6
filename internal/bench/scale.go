package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Scale is the "agentty bench -scale N" section: N sessions at once on one
// server, half PTY REPLs and half pipe cats, each answering a round trip
// with its own token while all exist, then all deleted.
type Scale struct {
	Sessions int      `json:"sessions"`
	PTY      int      `json:"pty_sessions"`
	Pipe     int      `json:"pipe_sessions"`
	PTYArgv  []string `json:"pty_argv"`
	PipeArgv []string `json:"pipe_argv"`
	// Answered counts sessions whose reply was exactly their own token;
	// Mismatches the others (the first few are in Failed).
	Answered   int `json:"answered"`
	Mismatches int `json:"mismatches"`
	// One send_input round trip per session, one call at a time, while
	// every session exists.
	RoundTrip     Latency `json:"round_trip"`
	RoundTripPTY  Latency `json:"round_trip_pty"`
	RoundTripPipe Latency `json:"round_trip_pipe"`
	// StartSeconds is how long starting all of them took (Workers calls
	// in flight); ListMs a list_sessions call with all of them there
	// (median of scaleLists).
	StartSeconds float64 `json:"start_seconds"`
	Workers      int     `json:"workers"`
	ListMs       float64 `json:"list_sessions_ms"`
	// Server VmRSS: idle after initialize, with the pipe sessions, with
	// all sessions (after their round trips), and per session over idle.
	IdleKiB       int64   `json:"rss_idle_kib"`
	PipesKiB      int64   `json:"rss_with_pipes_kib"`
	FullKiB       int64   `json:"rss_full_kib"`
	PerSessionKiB float64 `json:"per_session_kib"`
	PerPipeKiB    float64 `json:"per_pipe_session_kib"`
	PerPTYKiB     float64 `json:"per_pty_session_kib"`
	// The server's goroutines and open descriptors before the sessions
	// (after one warm-up session of each kind was started and deleted, so
	// what a server starts once on first use is in the baseline), with all
	// of them, and after deleting them once back at the baseline (or after
	// a minute); BackSeconds is how long that took.
	Goroutines Counts `json:"goroutines"`
	// The Go runtime's view at the same three points, and after the RSS
	// wait: live heap and stacks against what RSS shows.
	Runtime     [4]ServerStats `json:"runtime"`
	FDs         Counts         `json:"fds"`
	BackSeconds float64        `json:"back_seconds"`
	// RSS after deletion, read until RssAnon is within 20 % of idle's, or
	// for a minute. The budget compares RssAnon, the server's own memory:
	// VmRSS also counts the binary's file pages, and the idle reading's
	// forced collection (the socket's collect) maps megabytes of them
	// that the server drops again later on its own.
	AfterDeleteKiB int64   `json:"rss_after_delete_kib"`
	IdleAnonKiB    int64   `json:"rss_anon_idle_kib"`
	FullAnonKiB    int64   `json:"rss_anon_full_kib"`
	AfterAnonKiB   int64   `json:"rss_anon_after_delete_kib"`
	ReturnSeconds  float64 `json:"return_seconds"`
	// LeakedStacks are the server's goroutines when they did not come back
	// to the baseline, to find the leak.
	LeakedStacks string `json:"-"`
	// The machine's 1-minute load average when the run began and ended.
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
}

// Counts is one resource of the server before, during and after a run.
type Counts struct {
	Before int `json:"before"`
	Full   int `json:"with_sessions"`
	After  int `json:"after_delete"`
}

// ServerStats is what "agentty serve -debug-socket" answers to "stats":
// goroutines and the Go runtime's memory (runtime.MemStats), which tells
// what of RSS is live heap, stacks or freed memory not yet returned.
type ServerStats struct {
	Goroutines   int    `json:"goroutines"`
	HeapInuse    uint64 `json:"heap_inuse"`
	HeapIdle     uint64 `json:"heap_idle"`
	HeapReleased uint64 `json:"heap_released"`
	StackInuse   uint64 `json:"stack_inuse"`
	Sys          uint64 `json:"sys"`
	GOMAXPROCS   int    `json:"gomaxprocs"` // CPUs running Go code now (internal/procs)
}

// scaleWorkers is how many start and delete calls are in flight at once:
// enough to keep both CPUs of a small machine busy, few enough that each
// call's wait for its program's first prompt stays short.
const scaleWorkers = 8

// scaleLists is how many list_sessions calls ListMs is the median of.
const scaleLists = 5

// scaleArgv are the programs: python's REPL is the one agents drive
// most and the bench's round-trip REPL, a prompt without a newline that
// the input-wait verdict must see; cat on pipes is the lightest program
// that answers a line.
var (
	scalePTYArgv  = []string{"python3", "-q"}
	scalePipeArgv = []string{"cat"}
)

// realPython is python3's own executable: a version manager's shim
// (pyenv) would otherwise run a shell script before each of the REPLs.
func realPython() string {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if p := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(p) {
		return p
	}
	return "python3"
}

// scaleSession is one session of the run.
type scaleSession struct {
	id  string
	pty bool
}

// scale runs the scale measurement with n sessions (n/2 of them PTYs).
func (rn *runner) scale(ctx context.Context, n int, returnWithin, rssWithin time.Duration) (Scale, error) {
	pyArgv := append([]string{realPython()}, scalePTYArgv[1:]...)
	sc := Scale{Sessions: n, PTY: n / 2, Pipe: n - n/2, PTYArgv: pyArgv, PipeArgv: scalePipeArgv, Workers: scaleWorkers}
	sc.LoadBefore = loadAverage()
	dir, err := os.MkdirTemp("", "agentty-bench-scale-")
	if err != nil {
		return sc, err
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "debug.sock")
	cs, cmd, err := rn.server(ctx, "-max-sessions", strconv.Itoa(n+8), "-debug-socket", sock)
	if err != nil {
		return sc, err
	}
	defer cs.Close()
	pid := cmd.Process.Pid
	// Each phase's RSS is read once the server has collected its garbage
	// (starting a thousand sessions leaves megabytes of it): what it
	// holds, not when it last collected. After the deletions it is read
	// as it comes, the server returning memory on its own.
	resident := func() (rss, anon int64, err error) {
		if _, err := serverCollect(sock); err != nil {
			return 0, 0, err
		}
		return benchResident(pid)
	}
	// Idle means after the start settled, as in the memory section: the
	// server gives back its start's free heap and drops the binary's
	// pages a second after it began (server.startSettle).
	time.Sleep(settleWait) // no event tells when that happened
	if sc.IdleKiB, sc.IdleAnonKiB, err = resident(); err != nil {
		return sc, err
	}
	counts := func(at int) (int, int, error) {
		st, err := serverStats(sock)
		if err != nil {
			return 0, 0, err
		}
		sc.Runtime[at] = st
		fds, err := openFDs(pid)
		return st.Goroutines, fds, err
	}

	// Warm-up: what the server starts once (the guard's connection, the
	// orphan reaper, ...) is not per session.
	warm := []scaleSession{}
	for _, pty := range []bool{true, false} {
		argv := sc.PipeArgv
		if pty {
			argv = sc.PTYArgv
		}
		s, err := startScaleSession(ctx, cs, argv, pty)
		if err != nil {
			return sc, fmt.Errorf("warm-up: %w", err)
		}
		warm = append(warm, s)
	}
	for i, s := range warm {
		if _, ok, err := scaleRoundTrip(ctx, cs, s, -1-i); err != nil || !ok {
			return sc, fmt.Errorf("warm-up round trip: ok %v, err %v", ok, err)
		}
	}
	if err := deleteScaleSessions(ctx, cs, warm); err != nil {
		return sc, fmt.Errorf("warm-up: %w", err)
	}
	if sc.Goroutines.Before, sc.FDs.Before, err = counts(0); err != nil {
		return sc, err
	}

	// Pipes first, so their cost and the PTYs' can be told apart.
	sessions := make([]scaleSession, 0, n)
	t0 := time.Now()
	pipes, err := startScaleSessions(ctx, cs, sc.Pipe, sc.PipeArgv, false)
	sessions = append(sessions, pipes...)
	if err != nil {
		return sc, errors.Join(err, deleteScaleSessions(ctx, cs, sessions))
	}
	if sc.PipesKiB, _, err = resident(); err != nil {
		return sc, err
	}
	ptys, err := startScaleSessions(ctx, cs, sc.PTY, sc.PTYArgv, true)
	sessions = append(sessions, ptys...)
	sc.StartSeconds = time.Since(t0).Seconds()
	if err != nil {
		return sc, errors.Join(err, deleteScaleSessions(ctx, cs, sessions))
	}
	ptyKiB, _, err := resident()
	if err != nil {
		return sc, err
	}

	// Round trips, PTY and pipe sessions alternating, one call at a time.
	var order []scaleSession
	for i := range max(len(pipes), len(ptys)) {
		if i < len(pipes) {
			order = append(order, pipes[i])
		}
		if i < len(ptys) {
			order = append(order, ptys[i])
		}
	}
	var all, onPTY, onPipe []time.Duration
	var bad []string
	for i, s := range order {
		d, ok, err := scaleRoundTrip(ctx, cs, s, i)
		if err != nil {
			return sc, errors.Join(fmt.Errorf("round trip on %s: %w", s.id, err), deleteScaleSessions(ctx, cs, sessions))
		}
		all = append(all, d)
		if s.pty {
			onPTY = append(onPTY, d)
		} else {
			onPipe = append(onPipe, d)
		}
		if ok {
			sc.Answered++
		} else {
			sc.Mismatches++
			bad = append(bad, s.id)
		}
	}
	sc.RoundTrip, sc.RoundTripPTY, sc.RoundTripPipe = summarizeLatency(all), summarizeLatency(onPTY), summarizeLatency(onPipe)
	var lists []time.Duration
	for range scaleLists {
		var list struct {
			Count int `json:"count"`
		}
		t1 := time.Now()
		if _, err := call(ctx, cs, "list_sessions", map[string]any{}, &list); err != nil {
			return sc, err
		}
		lists = append(lists, time.Since(t1))
		if list.Count != n {
			return sc, fmt.Errorf("list_sessions counted %d sessions, want %d", list.Count, n)
		}
	}
	sc.ListMs = summarizeLatency(lists).MedianMs
	if sc.FullKiB, sc.FullAnonKiB, err = resident(); err != nil {
		return sc, err
	}
	sc.PerSessionKiB = float64(sc.FullKiB-sc.IdleKiB) / float64(n)
	sc.PerPipeKiB = float64(sc.PipesKiB-sc.IdleKiB) / float64(max(sc.Pipe, 1))
	sc.PerPTYKiB = float64(ptyKiB-sc.PipesKiB) / float64(max(sc.PTY, 1))
	if sc.Goroutines.Full, sc.FDs.Full, err = counts(1); err != nil {
		return sc, err
	}

	// A failed deletion is reported, and the server still measured.
	delErr := deleteScaleSessions(ctx, cs, sessions)
	t2 := time.Now()
	tick := time.NewTicker(100 * time.Millisecond) // counts have no event to wait on
	defer tick.Stop()
	for {
		if sc.Goroutines.After, sc.FDs.After, err = counts(2); err != nil {
			return sc, err
		}
		sc.BackSeconds = time.Since(t2).Seconds()
		if sc.Goroutines.After <= sc.Goroutines.Before && sc.FDs.After <= sc.FDs.Before || time.Since(t2) > returnWithin {
			break
		}
		<-tick.C
	}
	if sc.Goroutines.After > sc.Goroutines.Before {
		sc.LeakedStacks, _ = serverStacks(sock)
	}
	for {
		if sc.AfterDeleteKiB, sc.AfterAnonKiB, err = benchResident(pid); err != nil {
			return sc, err
		}
		sc.ReturnSeconds = time.Since(t2).Seconds()
		if sc.AfterAnonKiB <= sc.IdleAnonKiB*12/10 || time.Since(t2) > rssWithin {
			break
		}
		<-tick.C
	}
	if st, err := serverStats(sock); err == nil {
		sc.Runtime[3] = st
	}
	if len(bad) > 0 {
		delErr = errors.Join(delErr, fmt.Errorf("%d sessions did not answer their own token (first: %s)", len(bad), strings.Join(bad[:min(len(bad), 5)], ", ")))
	}
	return sc, delErr
}

// startScaleSessions starts k sessions of one kind, scaleWorkers at a
// time, and returns those that started (in start order) even on error.
func startScaleSessions(ctx context.Context, cs *mcp.ClientSession, k int, argv []string, pty bool) ([]scaleSession, error) {
	out := make([]scaleSession, k)
	errs := make([]error, k)
	forEach(k, func(i int) { out[i], errs[i] = startScaleSession(ctx, cs, argv, pty) })
	started := out[:0]
	for _, s := range out {
		if s.id != "" {
			started = append(started, s)
		}
	}
	return started, errors.Join(errs...)
}

// forEach runs f(0..k-1) on scaleWorkers goroutines and waits for them.
func forEach(k int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(scaleWorkers, k) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range k {
		next <- i
	}
	close(next)
	wg.Wait()
}

// startScaleSession starts one session and checks that its program waits
// for input: the REPL shows its prompt, cat reads.
func startScaleSession(ctx context.Context, cs *mcp.ClientSession, argv []string, pty bool) (scaleSession, error) {
	mode := "pipe"
	if pty {
		mode = "pty"
	}
	args := map[string]any{"argv": argv, "mode": mode, "timeout_ms": 60000}
	var st struct {
		SessionID string `json:"session_id"`
		Reason    string `json:"reason"`
		Output    string `json:"output"`
	}
	if _, err := call(ctx, cs, "start_process", args, &st); err != nil {
		return scaleSession{}, err
	}
	s := scaleSession{id: st.SessionID, pty: pty}
	if st.Reason != "awaiting_input" {
		return s, fmt.Errorf("start_process of %s returned %q (output %q), want awaiting_input", st.SessionID, st.Reason, st.Output)
	}
	return s, nil
}

// scaleRoundTrip sends session s a token of its own and times the reply,
// which must be exactly the token (and the REPL's next prompt).
func scaleRoundTrip(ctx context.Context, cs *mcp.ClientSession, s scaleSession, i int) (time.Duration, bool, error) {
	token := fmt.Sprintf("%s-tok%d", s.id, i)
	text, want := token, token+"\n"
	if s.pty {
		text, want = fmt.Sprintf("print(%q)", token), token+"\n>>> "
	}
	var r struct {
		Output string `json:"output"`
		Reason string `json:"reason"`
	}
	args := map[string]any{"session_id": s.id, "text": text, "enter": true, "timeout_ms": 30000}
	t0 := time.Now()
	_, err := call(ctx, cs, "send_input", args, &r)
	d := time.Since(t0)
	if err != nil {
		return d, false, err
	}
	ok := r.Output == want && r.Reason == "awaiting_input"
	if !ok {
		fmt.Fprintf(os.Stderr, "bench: scale: %s replied %q (%s), want %q\n", s.id, r.Output, r.Reason, want)
	}
	return d, ok, nil
}

// deleteScaleSessions terminates and deletes sessions, scaleWorkers at a
// time.
func deleteScaleSessions(ctx context.Context, cs *mcp.ClientSession, ss []scaleSession) error {
	errs := make([]error, len(ss))
	forEach(len(ss), func(i int) {
		var info struct {
			State string `json:"state"`
		}
		id := ss[i].id
		if _, err := call(ctx, cs, "terminate_process", map[string]any{"session_id": id, "grace_ms": 2000}, &info); err != nil {
			errs[i] = err
			return
		}
		if info.State != "exited" {
			errs[i] = fmt.Errorf("session %s is %s after terminate_process, want exited", id, info.State)
			return
		}
		_, errs[i] = call(ctx, cs, "delete_session", map[string]any{"session_id": id}, nil)
	})
	return errors.Join(errs...)
}
