package nodelink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/nodebackend"
)

// k8sStream is a node's stdio over a pods/exec stream. A goroutine runs
// the exec with pipes for stdin and stdout and keeps stderr for error
// messages; Close ends the node's input, gives it a moment to exit, then
// cancels the exec.
type k8sStream struct {
	api      podAPI
	ref      podRef
	restarts int32 // the container's restart count when the node started

	inW    *io.PipeWriter // the node's stdin
	outR   *io.PipeReader // the node's stdout
	errb   nodebackend.BoundedBuf
	cancel context.CancelFunc
	done   chan struct{} // closed when the exec returned
	err    error         // the exec's error; read after done
	once   sync.Once
}

// closeGrace is how long Close waits for the node to exit on its input's
// end before the exec is cancelled; the server waits for it.
const closeGrace = nodebackend.LinkCloseGrace

func newK8sStream(api podAPI, ref podRef, restarts int32, argv []string) *k8sStream {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &k8sStream{api: api, ref: ref, restarts: restarts, inW: inW, outR: outR, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		err := api.exec(ctx, ref.ns, ref.pod, ref.ctr, argv, inR, outW, &s.errb)
		s.err = err
		if err == nil {
			err = io.EOF
		}
		outW.CloseWithError(err)
		inR.CloseWithError(errors.New("node exec ended"))
	}()
	return s
}

func (s *k8sStream) Read(p []byte) (int, error)  { return s.outR.Read(p) }
func (s *k8sStream) Write(p []byte) (int, error) { return s.inW.Write(p) }

// Stderr is the node's stderr, else why the exec failed (e.g. the
// container has no such binary, or RBAC refused pods/exec).
func (s *k8sStream) Stderr() string {
	if e := s.errb.String(); e != "" {
		return e
	}
	select {
	case <-s.done:
		if s.err != nil {
			return execFailure(s.ref, s.err)
		}
	default:
	}
	return ""
}

func (s *k8sStream) Close() error {
	s.once.Do(func() {
		s.inW.Close()
		t := time.NewTimer(closeGrace)
		select {
		case <-s.done:
		case <-t.C:
		}
		t.Stop()
		s.cancel()
		s.outR.Close()
		<-s.done
	})
	return nil
}

// whyPoll is how often Why rereads the pod while the kubelet has not yet
// recorded the container's end.
const whyPoll = 250 * time.Millisecond

// Why asks the API what became of the pod and the container; the exec
// stream can end before the kubelet records the container's exit, so it
// rereads the pod for up to whyWait.
func (s *k8sStream) Why() string {
	ctx, cancel := context.WithTimeout(context.Background(), nodebackend.LinkWhyLimit)
	defer cancel()
	deadline := time.Now().Add(whyWait)
	tick := time.NewTicker(whyPoll)
	defer tick.Stop()
	for {
		why, final := s.why(ctx)
		if final || time.Now().After(deadline) {
			if why == "" {
				select {
				case <-s.done:
					var ec exitCoder
					if s.err != nil && !errors.As(s.err, &ec) {
						why = execFailure(s.ref, s.err)
					}
				default:
				}
			}
			return why
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return why
		}
	}
}

// why reads the pod once; final says the answer will not improve.
func (s *k8sStream) why(ctx context.Context) (string, bool) {
	pod, err := s.api.getPod(ctx, s.ref.ns, s.ref.pod)
	if err != nil {
		if isNotFound(err) {
			return fmt.Sprintf("pod %s/%s was deleted", s.ref.ns, s.ref.pod), true
		}
		return "", false
	}
	if pod.DeletionTimestamp != nil {
		return fmt.Sprintf("pod %s/%s is being deleted", s.ref.ns, s.ref.pod), true
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name != s.ref.ctr {
			continue
		}
		if t := cs.State.Terminated; t != nil {
			return fmt.Sprintf("%s stopped (%s, exit code %d)", s.ref, t.Reason, t.ExitCode), true
		}
		if cs.RestartCount > s.restarts {
			why := fmt.Sprintf("%s restarted", s.ref)
			if t := cs.LastTerminationState.Terminated; t != nil {
				why = fmt.Sprintf("%s restarted (%s, exit code %d)", s.ref, t.Reason, t.ExitCode)
			}
			return why, true
		}
	}
	return "", false
}

// execFailure words an exec that failed before or while running.
func execFailure(ref podRef, err error) string {
	if isForbidden(err) {
		return fmt.Sprintf("not allowed to exec in %s: agentty needs RBAC create on pods/exec in namespace %q (%v)", ref, ref.ns, err)
	}
	return fmt.Sprintf("exec in %s: %v", ref, err)
}
