package session

import (
	"fmt"
	"strings"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/excerpt"
	"github.com/agentty/agentty/internal/proctree"
	"github.com/agentty/agentty/internal/record"
)

// markerPrefix precedes the marker value in a child's environment.
var markerPrefix = proctree.EnvKey + "="

// StartRemote starts a program on another machine; the SSH backend
// (sshbackend.Pool.Start) provides it. nil means remote hosts are off.
type StartRemote func(spec backend.RemoteSpec, sink backend.Sink) (backend.Process, error)

// StartLocal starts a program on this machine in mode: start runs the fork
// on the manager's spawner thread (see proctree.Spawner).
type StartLocal func(mode record.Mode, spec backend.Spec, start func(func()), sink backend.Sink) (backend.Process, error)

// startLocal is StartLocal over a real PTY or real pipes.
func startLocal(mode record.Mode, spec backend.Spec, start func(func()), sink backend.Sink) (backend.Process, error) {
	if mode == record.ModePipe {
		return backend.StartPipe(spec, start, sink)
	}
	return backend.StartPTY(spec, start, sink)
}

// onHost names the host in a message: " on user@host:port", "" for local.
func onHost(host string) string {
	if host == "" {
		return ""
	}
	return " on " + host
}

// remoteSpec checks options for a remote start. Paths and commands are the
// remote's: nothing is looked up locally.
func remoteSpec(o *StartOptions, marker, id string) (backend.RemoteSpec, error) {
	var spec backend.RemoteSpec
	if err := checkOptions(o); err != nil {
		return spec, err
	}
	for k := range o.Env {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return spec, fmt.Errorf("%w: environment variable name %s is not valid", ErrBadArgs, excerpt.Q(k))
		}
	}
	spec = backend.RemoteSpec{Host: o.Host, SessionID: id, Marker: strings.TrimPrefix(marker, markerPrefix), Dir: o.Cwd,
		Env: o.Env, PTY: o.Mode == record.ModePTY, Rows: o.Rows, Cols: o.Cols, MergeStderr: o.MergeStderr,
		AcceptNewHostKey: o.AcceptNewHostKey}
	if o.Command != "" {
		spec.Argv = []string{"/bin/sh", "-c", o.Command}
	} else {
		spec.Argv = append([]string(nil), o.Argv...)
	}
	return spec, nil
}

// Host is the remote connection (user@host:port), "" for local sessions.
func (s *Session) Host() string { return s.proc.Host() }
