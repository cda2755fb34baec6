package nodelink

import (
	"context"
	"encoding/json"
	"io"
	"sync/atomic"
	"time"

	"github.com/agentty/agentty/internal/nodebackend"
)

// Stream is a node's stdio as an engine gives it.
type Stream = nodebackend.Stream

// Options configure Run.
type Options struct {
	// Version is the version of the agentty that started the link: it
	// names the private copy in the target and must match an agentty
	// found on the target's PATH.
	Version string
	// Binary is the static agentty copied into targets that have none of
	// this build.
	Binary string
}

// started says which agentty a node runs.
type started struct {
	exe    string // its path in the target
	copied int64  // bytes copied in for this start; 0 when one was there
}

// dialTimeout bounds reaching the target and starting the node (the
// server waits as long for the node's hello).
const dialTimeout = 30 * time.Second

// linker reaches targets; the zero value uses the real engines.
type linker struct {
	docker docker
	k8s    k8s
}

// dial starts `agentty node` in host's target.
func (l *linker) dial(ctx context.Context, host string, o *Options) (Stream, started, error) {
	t, err := nodebackend.ParseTarget(host)
	if err != nil {
		return nil, started{}, err
	}
	if t.Scheme == nodebackend.SchemeDocker {
		return l.docker.dial(ctx, t.Container, o)
	}
	return l.k8s.dial(ctx, t, o)
}

// Run is agentty-link: it starts a node in host's target and relays in to
// the node's stdin and its stdout to out, writing nodebackend.LinkStatus
// records to status. It returns the link's exit status: 1 when the node
// could not be started, else 0 once the node's stream has ended. The
// goroutine copying in ends at in's end; Run does not wait for it.
func Run(host string, o *Options, in io.Reader, out io.WriteCloser, status io.Writer) int {
	var l linker
	defer l.docker.close()
	return l.run(host, o, in, out, status)
}

func (l *linker) run(host string, o *Options, in io.Reader, out io.WriteCloser, status io.Writer) int {
	enc := json.NewEncoder(status)
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	s, st, err := l.dial(ctx, host, o)
	cancel()
	if err != nil {
		out.Close()
		_ = enc.Encode(nodebackend.LinkStatus{Proto: nodebackend.LinkProto, Error: err.Error()})
		return 1
	}
	if err := enc.Encode(nodebackend.LinkStatus{Proto: nodebackend.LinkProto, Ready: true, Exe: st.exe, Copied: st.copied}); err != nil {
		s.Close()
		out.Close()
		return 1
	}
	// inEnded: the server ended the node's input, so the stream's end is
	// its doing and the engine has nothing to explain.
	var inEnded atomic.Bool
	go func() {
		_, _ = io.Copy(s, readEnd{in, &inEnded})
		s.Close()
	}()
	w := &writeEnd{w: out}
	_, _ = io.Copy(w, s)
	out.Close()
	var last nodebackend.LinkStatus
	if !inEnded.Load() && !w.failed {
		last.Why = s.Why()
	}
	s.Close()
	last.Stderr = s.Stderr()
	_ = enc.Encode(last)
	return 0
}

// readEnd notes when its reader ends, by EOF or error.
type readEnd struct {
	r     io.Reader
	ended *atomic.Bool
}

func (r readEnd) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil {
		r.ended.Store(true)
	}
	return n, err
}

// writeEnd notes a failed write: the server is gone.
type writeEnd struct {
	w      io.Writer
	failed bool // written by the copying goroutine only
}

func (w *writeEnd) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.failed = true
	}
	return n, err
}
