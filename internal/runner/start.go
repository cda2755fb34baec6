package runner

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/procenv"
)

// ErrRemoteOff: a host was asked for but this server has no SSH backend.
var ErrRemoteOff = fmt.Errorf("%w: remote hosts are not enabled in this server", ErrBadArgs)

// started is a run's process and what the result says about where it ran.
type started struct {
	proc    backend.Process
	cwd     string // the result's cwd
	where   string // names the run in errors: the program, or "on HOST"
	release func() // hands the root's exit status back to the orphan reaper
}

// start starts o.Argv with plain pipes where o.Host says: on this machine,
// or on another one over SSH. sink receives both streams.
func (r *Runner) start(o Options, fileRE *regexp.Regexp, sink backend.Sink) (started, error) {
	if o.Host != "" {
		return r.startRemote(o, fileRE, sink)
	}
	return r.startLocal(o, sink)
}

// startLocal resolves the directory and the program here, so a typo is a
// clear error rather than exit 127, and starts it on the spawner thread,
// kept from the orphan reaper until release.
func (r *Runner) startLocal(o Options, sink backend.Sink) (started, error) {
	cwd, err := resolveDir(o.Cwd)
	if err != nil {
		return started{}, err
	}
	env := buildEnv(o.Base, o.Env, r.Marker())
	path, err := lookPath(o.Argv[0], cwd, procenv.Get(env, "PATH"))
	if err != nil {
		return started{}, err
	}
	spec := backend.Spec{Path: path, Argv: slices.Clone(o.Argv), Dir: cwd, Env: env, Marker: envMarker(env), Keeper: r.Keeper}
	if r.Contain != nil {
		if spec.Contain, err = r.Contain(); err != nil {
			return started{}, err
		}
	}
	var p backend.Process
	release, err := r.Spawn(func() (int, error) {
		var err error
		// Spawn already runs this on the spawner thread.
		if p, err = backend.StartPipe(spec, func(fork func()) { fork() }, sink); err != nil {
			return 0, err
		}
		return p.PID(), nil
	})
	if tl := (*backend.TooLongError)(nil); errors.As(err, &tl) {
		return started{}, err
	}
	if err != nil {
		return started{}, fmt.Errorf("%w: start %s: %v", ErrNotFound, o.Argv[0], err)
	}
	return started{proc: p, cwd: cwd, where: o.Argv[0], release: release}, nil
}

// startRemote runs o.Argv on o.Host through the SSH backend in pipe mode:
// sshd hands the command line to the login shell, and the backend quotes
// every word (POSIX single quotes) and execs the program through /bin/sh,
// so no argument is ever interpreted by a shell. Paths and the environment
// are the remote's: nothing is looked up here.
func (r *Runner) startRemote(o Options, fileRE *regexp.Regexp, sink backend.Sink) (started, error) {
	if r.Remote == nil {
		return started{}, ErrRemoteOff
	}
	if o.SuccessFile != "" || fileRE != nil {
		return started{}, fmt.Errorf("%w: success_file is checked on this machine and is not supported with host; check the file with a second run_command (e.g. argv [\"test\", \"-s\", FILE] or [\"grep\", \"-q\", PATTERN, FILE])", ErrBadArgs)
	}
	env := maps.Clone(nonInteractive)
	maps.Copy(env, o.Env)
	for k := range env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return started{}, fmt.Errorf("%w: environment variable name %s is not valid", ErrBadArgs, excerpt.Q(k))
		}
	}
	_, marker, _ := strings.Cut(r.Marker(), "=")
	spec := backend.RemoteSpec{Host: o.Host, SessionID: "run_command", Marker: marker, Argv: slices.Clone(o.Argv),
		Dir: o.Cwd, Env: env, AcceptNewHostKey: o.AcceptNewHostKey}
	p, err := r.Remote(spec, sink)
	if err != nil {
		return started{}, err
	}
	cwd := o.Cwd
	if cwd == "" {
		cwd = "~"
	}
	return started{proc: p, cwd: cwd, where: "on " + o.Host, release: func() {}}, nil
}
