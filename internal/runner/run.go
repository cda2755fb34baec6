// Package runner runs one program with argv (no shell: metacharacters are
// plain arguments) and captures its output with exact byte and line counts,
// head+tail truncation, optional paging of stdout, and success criteria.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/contain"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/outlog"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/re2"
)

// Errors for errors.Is.
var (
	ErrBadArgs  = errors.New("invalid arguments")
	ErrNotFound = errors.New("program not found")
)

// Limits and defaults.
const (
	DefaultTimeout  = 30 * time.Second
	MaxTimeout      = 10 * time.Minute
	DefaultMaxBytes = 100 << 10
	MaxBytesCap     = 4 << 20
	DefaultPageSize = 100
	maxPageBytes    = 4 << 20
	maxSuccessFile  = 16 << 20
	// drainWait is how long output may still arrive after the program
	// exited, from descendants that hold its pipes.
	drainWait = time.Second
	// killWait bounds ending the tree after the timeout (a remote one
	// takes round trips; a local one ends within proctree's own bound).
	killWait = 5 * time.Second
)

// Options describe one run. Argv is required; the rest defaults.
type Options struct {
	Argv []string
	Cwd  string // default: the server's directory
	Env  map[string]string
	// Base is the environment the program begins from, under Env and the
	// non-interactive defaults (nil: agentty's own).
	Base    map[string]string
	Stdin   string        // written to the program's stdin, then closed
	Timeout time.Duration // 0: DefaultTimeout; the tree is killed when it passes
	// MaxOutputBytes bounds each stream's text (head and tail kept).
	MaxOutputBytes int
	// SuccessExitCode is the exit code that means success (nil: 0);
	// AnyExitCode accepts every exit code.
	SuccessExitCode *int
	AnyExitCode     bool
	// SuccessFile (relative to Cwd) must exist after the run and, when
	// SuccessFilePattern is set, match that RE2 regex.
	SuccessFile        string
	SuccessFilePattern string
	// Page (0-based) and PageSize select lines of stdout; Paged turns it on.
	Paged    bool
	Page     int
	PageSize int
	// Host runs the program on another machine over SSH (user@host[:port]
	// or an ssh config alias); Cwd is then the remote's ("" for the login
	// directory) and Env is all the environment passed beyond the remote
	// login's own. SuccessFile is refused with Host.
	Host             string
	AcceptNewHostKey bool
}

// Spawn starts a process on a thread that outlives it and keeps the orphan
// reaper away from its exit status until release is called.
type Spawn func(start func() (pid int, err error)) (release func(), err error)

// StartRemote starts a program on another host: the SSH backend's
// sshbackend.Pool.Start.
type StartRemote func(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error)

// Starter starts programs on other hosts (sshbackend.Pool): what a
// front end hands New as remote.
type Starter interface {
	Start(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error)
}

// Runner runs programs; its marker is put in every child's environment so
// agentty's guard can find and kill them if agentty dies.
type Runner struct {
	Spawn Spawn
	// Marker returns a fresh KEY=VALUE environment entry per run.
	Marker func() string
	// Remote starts programs on other hosts (Options.Host). nil turns
	// remote runs off.
	Remote StartRemote
	// Contain gives local runs the configured limits and sandbox (nil:
	// none).
	Contain func() (*backend.Contain, error)
	// Keeper starts local runs no cgroup holds through a keeper
	// (backend.Spec.Keeper; nil: none).
	Keeper []string
}

// Host is what runs borrow from the session manager (session.Manager):
// its spawner thread with the orphan reaper held off, and its instance id.
type Host interface {
	SpawnOwned(start func() (pid int, err error)) (release func(), err error)
	Instance() string
	// ContainRun is the configured limits and sandbox for a run (nil:
	// none), or why the kernel cannot give them.
	ContainRun() (*backend.Contain, error)
	// Keeper is backend.Spec.Keeper for local runs.
	Keeper() []string
}

// New returns a Runner whose children start on h's spawner thread, are kept
// from the orphan reaper, and carry a marker under h's instance, so the
// guard kills them with h's sessions if agentty dies. remote may be nil.
func New(h Host, remote StartRemote) *Runner {
	var seq atomic.Int64
	return &Runner{
		Spawn: h.SpawnOwned,
		Marker: func() string {
			return proctree.EnvKey + "=" + h.Instance() + "/run" + strconv.FormatInt(seq.Add(1), 10)
		},
		Remote:  remote,
		Contain: h.ContainRun,
		Keeper:  h.Keeper(),
	}
}

// Check is one success criterion and whether it held.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// PageInfo locates a page of stdout lines.
type PageInfo struct {
	Page       int
	PageSize   int
	TotalLines int64
	HasNext    bool
	Clipped    bool // the page was cut at 4 MiB (very long lines)
}

// Result is what a run did.
type Result struct {
	OK       bool // every success criterion held
	Argv     []string
	Cwd      string
	ExitCode *int
	Signal   string
	TimedOut bool
	Duration time.Duration
	Stdout   Stream
	Stderr   Stream
	Checks   []Check
	Page     *PageInfo
	// Full is the whole stdout when it was captured without truncation
	// (for parsers), else "".
	Full string
}

// Run runs o.Argv and waits for it (or its timeout).
func (r *Runner) Run(ctx context.Context, o Options) (Result, error) {
	if len(o.Argv) == 0 || o.Argv[0] == "" {
		return Result{}, fmt.Errorf("%w: argv must name a program, e.g. [\"git\", \"status\"]", ErrBadArgs)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Timeout > MaxTimeout {
		return Result{}, fmt.Errorf("%w: timeout_ms is at most %d", ErrBadArgs, MaxTimeout.Milliseconds())
	}
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = DefaultMaxBytes
	}
	if o.MaxOutputBytes < 64 || o.MaxOutputBytes > MaxBytesCap {
		return Result{}, fmt.Errorf("%w: max_output_bytes must be between 64 and %d", ErrBadArgs, MaxBytesCap)
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.Page < 0 || o.PageSize < 1 {
		return Result{}, fmt.Errorf("%w: page must be >= 0 and page_size >= 1", ErrBadArgs)
	}
	var fileRE *regexp.Regexp
	if o.SuccessFilePattern != "" {
		if o.SuccessFile == "" {
			return Result{}, fmt.Errorf("%w: success_file_pattern needs success_file", ErrBadArgs)
		}
		re, err := re2.Compile("(?m)" + o.SuccessFilePattern)
		if err != nil {
			return Result{}, fmt.Errorf("%w: success_file_pattern is not a valid RE2 regex: %v", ErrBadArgs, err)
		}
		fileRE = re
	}
	stdout, stderr := newCapture(o.MaxOutputBytes), newCapture(o.MaxOutputBytes)
	var pg *pager
	if o.Paged {
		pg = &pager{first: int64(o.Page) * int64(o.PageSize), size: int64(o.PageSize), maxBytes: maxPageBytes}
	}
	// The backend's two pumps call sink concurrently (one per stream); mu
	// orders them, and the captures are read only after the pumps ended.
	var mu sync.Mutex
	sink := func(s outlog.Stream, b []byte) {
		mu.Lock()
		defer mu.Unlock()
		if s == outlog.Stderr {
			_, _ = stderr.Write(b)
			return
		}
		_, _ = stdout.Write(b)
		if pg != nil {
			_, _ = pg.Write(b)
		}
	}
	start := time.Now()
	st, err := r.start(o, fileRE, sink)
	if err != nil {
		return Result{}, err
	}
	ex, timedOut, werr := supervise(ctx, st.proc, o)
	st.release()

	res := Result{Argv: slices.Clone(o.Argv), Cwd: st.cwd, Duration: time.Since(start), TimedOut: timedOut}
	switch {
	case werr != nil:
		return Result{}, fmt.Errorf("run %s: %w", st.where, werr)
	case ex.Lost != "" && !timedOut && ctx.Err() == nil:
		return Result{}, fmt.Errorf("run %s: %s", st.where, ex.Lost)
	case ex.Signal != 0:
		res.Signal = signalName(ex.Signal)
	case ex.Lost != "":
		res.Signal = "unknown (" + ex.Lost + ")"
	default:
		code := ex.Code
		res.ExitCode = &code
	}
	mu.Lock()
	finish(&res, o, stdout, stderr, pg)
	mu.Unlock()
	res.Checks, res.OK = checks(&res, o, st.cwd, fileRE)
	if ctx.Err() != nil && !timedOut {
		return res, ctx.Err()
	}
	return res, nil
}

// supervise feeds o.Stdin to p, waits for it, and ends its whole tree
// when o.Timeout passes or ctx ends (the one killer of every run). The
// stdin writer and the killer are owned by this call: both have ended, and
// p is closed, when it returns.
func supervise(ctx context.Context, p backend.Process, o Options) (ex backend.Exit, timedOut bool, err error) {
	deadline := time.Now().Add(o.Timeout)
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(2)
	go func() {
		defer wg.Done()
		if o.Stdin != "" {
			_, _ = p.Write([]byte(o.Stdin), deadline)
		}
		_ = p.CloseStdin()
	}()
	go func() {
		defer wg.Done()
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		select {
		case <-done:
			return
		case <-t.C:
			timedOut = true
		case <-ctx.Done():
		}
		tctx, cancel := context.WithTimeout(context.Background(), killWait)
		_ = p.Terminate(tctx, 0)
		cancel()
	}()
	ex, err = p.Wait()
	if c := p.Containment(); c.Kind == contain.KindCgroup || c.Keeper || c.Tracked {
		// The run has its own cgroup, keeper or tracker: whatever it left
		// behind (a daemon, a `setsid` child) ends with it, by one
		// cgroup.kill, the keeper's kill of its tree or the tracked
		// members' kill.
		tctx, cancel := context.WithTimeout(context.Background(), killWait)
		if terr := p.Terminate(tctx, 0); terr != nil && err == nil {
			err = fmt.Errorf("end what the run left behind: %w", terr)
		}
		cancel()
	}
	// Descendants that keep the pipes open must not hold the call forever.
	t := time.NewTimer(drainWait)
	select {
	case <-p.Drained():
	case <-t.C:
	}
	t.Stop()
	close(done)
	p.Close() // also ends a stdin write nobody takes
	wg.Wait()
	return ex, timedOut, err
}

// finish renders the captured streams (and the page of stdout) into res.
func finish(res *Result, o Options, stdout, stderr *capture, pg *pager) {
	res.Stdout, res.Stderr = stdout.result(), stderr.result()
	if !res.Stdout.Truncated {
		res.Full = res.Stdout.Text
	}
	if pg != nil {
		total := pg.lines()
		res.Page = &PageInfo{Page: o.Page, PageSize: o.PageSize, TotalLines: total,
			HasNext: int64(o.Page+1)*int64(o.PageSize) < total, Clipped: pg.clipped}
		res.Stdout.Text = strings.ToValidUTF8(string(pg.page), "\uFFFD")
		res.Stdout.Truncated = total > int64(o.PageSize) || pg.clipped
		res.Stdout.OmittedBytes = 0
	}
}

func checks(res *Result, o Options, cwd string, re *regexp.Regexp) ([]Check, bool) {
	var out []Check
	ok := true
	add := func(c Check) {
		out = append(out, c)
		ok = ok && c.OK
	}
	if res.TimedOut {
		add(Check{Name: "timeout", OK: false, Detail: fmt.Sprintf("killed after %v", o.Timeout)})
	}
	want := 0
	if o.SuccessExitCode != nil {
		want = *o.SuccessExitCode
	}
	switch {
	case res.ExitCode == nil:
		add(Check{Name: "exit_code", OK: false, Detail: "killed by " + res.Signal})
	case o.AnyExitCode:
		add(Check{Name: "exit_code", OK: true, Detail: fmt.Sprintf("exit code %d (any accepted)", *res.ExitCode)})
	default:
		add(Check{Name: "exit_code", OK: *res.ExitCode == want, Detail: fmt.Sprintf("exit code %d, want %d", *res.ExitCode, want)})
	}
	if o.SuccessFile != "" {
		p := o.SuccessFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		c := Check{Name: "success_file"}
		f, err := os.Open(p)
		if err != nil {
			c.Detail = fmt.Sprintf("%s: %v", excerpt.Q(p), pathErr(err))
			add(c)
			return out, ok
		}
		data, _ := io.ReadAll(io.LimitReader(f, maxSuccessFile))
		f.Close()
		n := len(data)
		buf := data
		switch {
		case re == nil:
			c.OK, c.Detail = true, fmt.Sprintf("%s exists (%d bytes)", p, n)
		case re.Match(buf[:n]):
			c.OK, c.Detail = true, fmt.Sprintf("%s matches %s: %q", p, excerpt.Q(o.SuccessFilePattern), clip(string(re.Find(buf[:n])), 200))
		default:
			c.Detail = fmt.Sprintf("%s (%d bytes) does not match %s", p, n, excerpt.Q(o.SuccessFilePattern))
		}
		add(c)
	}
	return out, ok
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// pathErr drops the path from a file error: the detail quotes it already,
// bounded.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
