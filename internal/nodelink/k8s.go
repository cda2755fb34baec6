package nodelink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentty/agentty/internal/nodebackend"
	corev1 "k8s.io/api/core/v1"
)

// k8s reaches pods through the Kubernetes API: the pod is read, then
// `agentty node` runs in its container through a pods/exec stream.
type k8s struct {
	// newAPI builds the cluster client; nil means client-go with the
	// default kubeconfig loading rules. Tests set a fake.
	newAPI func() (podAPI, error)

	mu  sync.Mutex
	api podAPI // guarded by mu; built on first use, not cached on error so a fixed kubeconfig is picked up
}

// defaultContainerAnnotation names a pod's default container, as kubectl
// exec reads it.
const defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

func (k *k8s) client() (podAPI, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.api != nil {
		return k.api, nil
	}
	newAPI := k.newAPI
	if newAPI == nil {
		newAPI = func() (podAPI, error) { return newClusterAPI() }
	}
	api, err := newAPI()
	if err != nil {
		return nil, err
	}
	k.api = api
	return api, nil
}

// podRef names one container of one pod, in messages as in calls.
type podRef struct{ ns, pod, ctr string }

func (r podRef) String() string {
	return fmt.Sprintf("container %q in pod %s/%s", r.ctr, r.ns, r.pod)
}

// dial starts `agentty node` in the pod's container and returns its stdio.
func (k *k8s) dial(ctx context.Context, t nodebackend.Target, o *Options) (Stream, started, error) {
	api, err := k.client()
	if err != nil {
		return nil, started{}, fmt.Errorf("%s: %w", t.Key(), err)
	}
	ref, restarts, err := k.container(ctx, api, t)
	if err != nil {
		return nil, started{}, err
	}
	st, err := k.ensureBinary(ctx, api, ref, o)
	if err != nil {
		return nil, st, err
	}
	return newK8sStream(api, ref, restarts, []string{st.exe, "node"}), st, nil
}

// container reads the pod and picks the container t names (else the pod's
// default one); it must be running. restarts is its restart count now, so
// Why can tell a restart from a stream that merely broke.
func (k *k8s) container(ctx context.Context, api podAPI, t nodebackend.Target) (ref podRef, restarts int32, err error) {
	ref = podRef{ns: t.Namespace, pod: t.Pod, ctr: t.Container}
	pod, err := api.getPod(ctx, t.Namespace, t.Pod)
	switch {
	case err == nil:
	case isNotFound(err):
		return ref, 0, fmt.Errorf("no pod %q in namespace %q: check the name with kubectl get pods -n %s (agentty never creates pods)", t.Pod, t.Namespace, t.Namespace)
	case isForbidden(err):
		return ref, 0, fmt.Errorf("not allowed to read pod %s/%s: agentty needs RBAC get on pods and create on pods/exec in namespace %q (%v)", t.Namespace, t.Pod, t.Namespace, err)
	default:
		return ref, 0, fmt.Errorf("kubernetes: read pod %s/%s: %w (is the cluster reachable and the kubeconfig's current context the right one?)", t.Namespace, t.Pod, err)
	}
	if ref.ctr == "" {
		ref.ctr = pod.Annotations[defaultContainerAnnotation]
	}
	if ref.ctr == "" && len(pod.Spec.Containers) > 0 {
		ref.ctr = pod.Spec.Containers[0].Name
	}
	var names []string
	found := false
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
		found = found || c.Name == ref.ctr
	}
	if !found {
		return ref, 0, fmt.Errorf("pod %s/%s has no container %q: its containers are %s; use k8s://%s/%s/CONTAINER", t.Namespace, t.Pod, ref.ctr, strings.Join(names, ", "), t.Namespace, t.Pod)
	}
	if pod.Status.Phase != corev1.PodRunning {
		return ref, 0, fmt.Errorf("pod %s/%s is %s, not Running: wait for it (kubectl get pod -n %s %s) and try again", t.Namespace, t.Pod, pod.Status.Phase, t.Namespace, t.Pod)
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name != ref.ctr {
			continue
		}
		if cs.State.Running == nil {
			return ref, 0, fmt.Errorf("%s is not running (%s): wait for it or check kubectl describe pod -n %s %s", ref, stateText(cs.State), t.Namespace, t.Pod)
		}
		return ref, cs.RestartCount, nil
	}
	return ref, 0, fmt.Errorf("%s has no status yet: wait for it to start and try again", ref)
}

// stateText says what a container that is not running is doing.
func stateText(s corev1.ContainerState) string {
	switch {
	case s.Waiting != nil:
		return "waiting: " + s.Waiting.Reason
	case s.Terminated != nil:
		return fmt.Sprintf("terminated: %s, exit code %d", s.Terminated.Reason, s.Terminated.ExitCode)
	}
	return "no state"
}

// probeTimeout bounds each short exec of the binary check.
const probeTimeout = 10 * time.Second

// run execs argv briefly and returns its trimmed stdout; ok is false unless
// it ran and exited 0.
func run(ctx context.Context, api podAPI, ref podRef, argv ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var out nodebackend.BoundedBuf
	err := api.exec(ctx, ref.ns, ref.pod, ref.ctr, argv, nil, &out, io.Discard)
	return out.String(), err == nil
}

// ensureBinary returns the path of an agentty the node can run in the
// container: the copy of this build from an earlier start, else one on
// PATH of the same version, else a fresh copy through a tar stream over
// exec (as kubectl cp does: pods have no archive upload).
func (k *k8s) ensureBinary(ctx context.Context, api podAPI, ref podRef, o *Options) (started, error) {
	b, dir, exe, err := shipped(o)
	if err != nil {
		return started{}, err
	}
	if out, ok := run(ctx, api, ref, exe, "version"); ok && isVersion(out, o.Version) {
		return started{exe: exe}, nil
	}
	if out, ok := run(ctx, api, ref, "agentty", "version"); ok && isVersion(out, o.Version) {
		return started{exe: "agentty"}, nil
	}
	if m, ok := run(ctx, api, ref, "uname", "-m"); ok && m != "" && goArch(m) != b.arch {
		return started{}, fmt.Errorf("%s runs on %s, but the agentty to copy in is built for %s: give agentty serve -node-binary with a static agentty built with GOARCH=%s", ref, m, b.arch, goArch(m))
	}
	f, err := os.Open(b.path)
	if err != nil {
		return started{}, err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(tarBinary(pw, strings.TrimPrefix(dir, "/tmp/"), f, b.size))
	}()
	var stderr nodebackend.BoundedBuf
	err = api.exec(ctx, ref.ns, ref.pod, ref.ctr, []string{"tar", "-xf", "-", "-C", "/tmp"}, pr, io.Discard, &stderr)
	pr.CloseWithError(errors.New("copy ended"))
	if err != nil {
		return started{}, copyError(ref, exe, err, stderr.String())
	}
	return started{exe: exe, copied: b.size}, nil
}

// copyError words a failed tar copy by its cause.
func copyError(ref podRef, exe string, err error, stderr string) error {
	var ec exitCoder
	switch {
	case errors.As(err, &ec):
		return fmt.Errorf("cannot copy agentty into %s at %s: tar exited %d: %s: the container needs a writable /tmp", ref, exe, ec.ExitStatus(), stderr)
	case isForbidden(err):
		return fmt.Errorf("not allowed to exec in %s: agentty needs RBAC create on pods/exec in namespace %q (%v)", ref, ref.ns, err)
	case strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "no such file"):
		return fmt.Errorf("%s has no tar to copy agentty in with: add tar to the image, or put a static agentty of this version on its PATH (%v)", ref, err)
	}
	return fmt.Errorf("cannot copy agentty into %s at %s: %w", ref, exe, err)
}
