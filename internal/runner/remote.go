package runner

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/outlog"
)

// ErrRemoteOff: a host was asked for but this server has no SSH backend.
var ErrRemoteOff = fmt.Errorf("%w: remote hosts are not enabled in this server", ErrBadArgs)

// remoteStdinGrace bounds writing the stdin payload to a remote program
// that does not read it; the run's own timeout still applies.
const remoteStdinGrace = 5 * time.Second

// runRemote runs o.Argv on o.Host through the SSH backend in pipe mode:
// sshd hands the command line to the login shell, and the backend quotes
// every word (POSIX single quotes) and execs the program through /bin/sh,
// so no argument is ever interpreted by a shell. Output is captured as a
// local run's; on timeout or cancellation the backend's Terminate ends the
// whole remote tree.
func (r *Runner) runRemote(ctx context.Context, o Options, fileRE *regexp.Regexp) (Result, error) {
	if r.Remote == nil {
		return Result{}, ErrRemoteOff
	}
	if o.SuccessFile != "" || fileRE != nil {
		return Result{}, fmt.Errorf("%w: success_file is checked on this machine and is not supported with host; check the file with a second run_command (e.g. argv [\"test\", \"-s\", FILE] or [\"grep\", \"-q\", PATTERN, FILE])", ErrBadArgs)
	}
	env := maps.Clone(nonInteractive)
	maps.Copy(env, o.Env)
	for k := range env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return Result{}, fmt.Errorf("%w: environment variable name %s is not valid", ErrBadArgs, excerpt.Q(k))
		}
	}
	marker := r.Marker()
	_, markerValue, _ := strings.Cut(marker, "=")

	stdout, stderr := newCapture(o.MaxOutputBytes), newCapture(o.MaxOutputBytes)
	var pg *pager
	if o.Paged {
		pg = &pager{first: int64(o.Page) * int64(o.PageSize), size: int64(o.PageSize), maxBytes: maxPageBytes}
	}
	// The backend's two pumps call sink concurrently (one per stream); mu
	// orders them, and the captures are read only after Drained.
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
	spec := backend.RemoteSpec{Host: o.Host, SessionID: "run_command", Marker: markerValue, Argv: slices.Clone(o.Argv),
		Dir: o.Cwd, Env: env, AcceptNewHostKey: o.AcceptNewHostKey}
	p, err := r.Remote(spec, sink)
	if err != nil {
		return Result{}, err
	}
	defer p.Close()
	rem, _ := p.(backend.Remote)

	// The stdin writer and the killer are owned by this call: both end
	// before it returns (wg).
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		if o.Stdin != "" {
			_, _ = p.Write([]byte(o.Stdin), time.Now().Add(min(o.Timeout, remoteStdinGrace)))
		}
		_ = p.CloseStdin()
	}()
	var timedOut bool
	wg.Add(1)
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
		if rem != nil {
			tctx, cancel := context.WithTimeout(context.Background(), remoteStdinGrace)
			_ = rem.Terminate(tctx, 0)
			cancel()
		}
	}()
	ex, werr := p.Wait()
	close(done)
	<-p.Drained()
	wg.Wait()

	res := Result{Argv: slices.Clone(o.Argv), Cwd: o.Cwd, Duration: time.Since(start), TimedOut: timedOut}
	if res.Cwd == "" {
		res.Cwd = "~"
	}
	switch {
	case werr != nil:
		return Result{}, fmt.Errorf("run on %s: %w", o.Host, werr)
	case ex.Lost != "" && !timedOut && ctx.Err() == nil:
		return Result{}, fmt.Errorf("run on %s: %s", o.Host, ex.Lost)
	case ex.Signal != 0:
		res.Signal = unixSignalName(ex.Signal)
	case ex.Lost != "":
		res.Signal = "unknown (" + ex.Lost + ")"
	default:
		code := ex.Code
		res.ExitCode = &code
	}
	mu.Lock()
	finish(&res, o, stdout, stderr, pg)
	mu.Unlock()
	res.Checks, res.OK = checks(&res, o, "", nil)
	if ctx.Err() != nil && !timedOut {
		return res, ctx.Err()
	}
	return res, nil
}
