package nodebackend

// Design: docker:// and k8s:// nodes are reached through agentty-link, a
// separate program (cmd/agentty-link, internal/nodelink) that holds the
// Docker and Kubernetes clients. The server binary links neither: their
// package inits and size cost every start of every server (about 2.6 ms
// of each cold start and 1.1 MiB of idle memory, docs/benchmarks.md), and
// most servers never reach a container.
//
// One link runs per node, as long as the node: its stdin and stdout are
// the node's, byte for byte, so the protocol's ordering holds; fd 3
// carries LinkStatus records (first Ready or Error, then at the stream's
// end Why and the node's stderr). The linkStream owns the link process:
// a goroutine reads the status records and reaps it; Close ends the
// node's input, gives the link LinkCloseGrace to finish, then kills it.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// LinkName is agentty-link's file name, looked for next to the running
// agentty, then on PATH.
const LinkName = "agentty-link"

// ErrNoLink is returned when no agentty-link can be found.
var ErrNoLink = errors.New("no " + LinkName)

// linkWhyWait bounds how long Why waits for the link's last record.
const linkWhyWait = LinkWhyLimit + 2*time.Second

// linkPath picks the link to run: the configured one, else agentty-link
// next to this executable, else on PATH.
func linkPath(configured string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	dir := ""
	if exe, err := os.Executable(); err == nil {
		dir = filepath.Dir(exe)
		p := filepath.Join(dir, LinkName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(LinkName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: docker:// and k8s:// hosts are reached through %s, found neither next to agentty (%s) nor on PATH: install it with agentty (CGO_ENABLED=0 go install ./cmd/... from a clone) or give agentty serve -node-link PATH",
		ErrNoLink, LinkName, dir)
}

// binaryPath picks the binary nodes run: the configured one (serve's
// -node-binary, AGENTTY_NODE_BINARY), else the running executable.
func binaryPath(configured string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", errors.New("cannot find the running agentty binary to copy into the container: set -node-binary")
	}
	return p, nil
}

// linkStream is a node's stdio through its agentty-link process.
type linkStream struct {
	cmd   *exec.Cmd
	in    *os.File // the node's stdin
	out   *os.File // the node's stdout
	errb  BoundedBuf
	done  chan struct{} // closed when the link exited and its records were read
	first LinkStatus    // the first record; set by dialLink
	last  LinkStatus    // the last record; read after done
	once  sync.Once
}

// dialLink starts agentty-link for t and waits for its first record.
func dialLink(ctx context.Context, t Target, o *Options) (Stream, error) {
	link, err := linkPath(o.Link)
	if err != nil {
		return nil, err
	}
	bin, err := binaryPath(o.Binary)
	if err != nil {
		return nil, err
	}
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
	stR, stW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	s := &linkStream{in: inW, out: outR, done: make(chan struct{})}
	args := append([]string{"-version", o.Version, "-binary", bin}, statusArgs(stW)...)
	s.cmd = exec.Command(link, append(args, t.Key())...)
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = inR, outW, &s.errb
	// Its own process group: a terminal's ^C is the server's to handle;
	// the link ends when the node's input does. stW is its status pipe.
	err = startLink(s.cmd, stW)
	inR.Close()
	outW.Close()
	stW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		stR.Close()
		return nil, fmt.Errorf("cannot start %s (%s): %w", LinkName, link, err)
	}
	first := make(chan LinkStatus, 1)
	go s.reap(stR, first)
	select {
	case s.first = <-first:
	case <-s.done:
		select {
		case s.first = <-first: // it said why, then ended
		default:
			s.Close()
			return nil, fmt.Errorf("%s for %s ended before it started the node (%v): %s", LinkName, t.Key(), s.cmd.ProcessState, s.errb.String())
		}
	case <-ctx.Done():
		s.Close()
		return nil, fmt.Errorf("%s for %s did not start the node within the time allowed: %s", LinkName, t.Key(), s.errb.String())
	}
	switch st := s.first; {
	case st.Proto != LinkProto:
		s.Close()
		return nil, fmt.Errorf("%s at %s speaks link protocol %d, this agentty %d: install agentty and %s from one version", LinkName, link, st.Proto, LinkProto, LinkName)
	case st.Error != "":
		s.Close()
		return nil, errors.New(st.Error)
	case st.Copied > 0:
		o.Logger.Info("copied agentty into the target", "host", t.Key(), "path", st.Exe, "bytes", st.Copied)
	}
	return s, nil
}

// reap reads the link's records until it exits, then waits for it. It is
// the link process's only waiter.
func (s *linkStream) reap(st *os.File, first chan<- LinkStatus) {
	defer close(s.done)
	dec := json.NewDecoder(bufio.NewReader(st))
	for n := 0; ; n++ {
		var r LinkStatus
		if err := dec.Decode(&r); err != nil {
			break
		}
		if n == 0 {
			first <- r
		} else {
			s.last = r
		}
	}
	st.Close()
	_ = s.cmd.Wait()
}

func (s *linkStream) Read(p []byte) (int, error)  { return s.out.Read(p) }
func (s *linkStream) Write(p []byte) (int, error) { return s.in.Write(p) }

// Stderr is the node's stderr once the link has said it, else the link's
// own (why it failed, if it did).
func (s *linkStream) Stderr() string {
	select {
	case <-s.done:
		if s.last.Stderr != "" {
			return s.last.Stderr
		}
	default:
	}
	return s.errb.String()
}

// Why is the link's last word on the target, once its stream has ended.
func (s *linkStream) Why() string {
	t := time.NewTimer(linkWhyWait)
	defer t.Stop()
	select {
	case <-s.done:
		return s.last.Why
	case <-t.C:
		return ""
	}
}

// Close ends the node's input (the node then ends its programs and the
// link its exec) and waits for the link, killing it after LinkCloseGrace.
func (s *linkStream) Close() error {
	s.once.Do(func() {
		s.in.Close()
		t := time.NewTimer(LinkCloseGrace + time.Second)
		select {
		case <-s.done:
		case <-t.C:
			_ = s.cmd.Process.Kill()
			<-s.done
		}
		t.Stop()
		s.out.Close()
	})
	return nil
}
