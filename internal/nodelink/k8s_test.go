package nodelink

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentty/agentty/internal/backend"
	"github.com/agentty/agentty/internal/nodebackend"
	"github.com/agentty/agentty/internal/outlog"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// lockedBuf collects a process's output.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer // guarded by mu
}

func (l *lockedBuf) sink(_ outlog.Stream, p []byte) {
	l.mu.Lock()
	l.b.Write(p)
	l.mu.Unlock()
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startEcho starts a short program on host and checks its output and exit.
func startEcho(t *testing.T, p *nodebackend.Pool, host string) {
	t.Helper()
	out := &lockedBuf{}
	pr, err := p.Start(backend.RemoteSpec{Host: host, Argv: []string{"sh", "-c", "echo in-pod; exit 3"}, MergeStderr: true}, out.sink)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	ex, err := pr.Wait()
	if err != nil || ex.Code != 3 || ex.Lost != "" {
		t.Fatalf("exit %+v %v", ex, err)
	}
	<-pr.Drained()
	if got := out.String(); got != "in-pod\n" {
		t.Fatalf("output %q", got)
	}
}

// The node runs over the exec seam's stdio; the binary is copied by a tar
// stream into the private path once, and the second start reuses it.
func TestK8s_NodeOverExecCopiesBinaryOnce(t *testing.T) {
	bin, sum := staticELF(t)
	f := newFakePods(runningPod("default", "web", "app", "sidecar"))
	b, err := loadBinary(bin)
	if err != nil {
		t.Fatal(err)
	}
	dir := privateDir("test", b)
	exe := dir + "/agentty"
	p := k8sPool(t, f, bin)
	startEcho(t, p, "k8s://default/web")
	want := []string{"app: " + exe + " version", "app: agentty version", "app: uname -m", "app: tar -xf - -C /tmp", "app: " + exe + " node"}
	if got := f.callLog(); !slices.Equal(got, want) {
		t.Fatalf("execs\n%q\nwant\n%q", got, want)
	}
	rel := strings.TrimPrefix(exe, "/tmp/")
	f.mu.Lock()
	got, mode, dirMode := f.files[rel], f.modes[rel], f.modes[strings.TrimPrefix(dir, "/tmp/")+"/"]
	f.mu.Unlock()
	if sha256.Sum256(got) != sum || mode != 0o755 || dirMode != 0o700 {
		t.Fatalf("copied %d bytes (checksum match %v) mode %o, dir mode %o", len(got), sha256.Sum256(got) == sum, mode, dirMode)
	}
	if h := p.Hosts(); len(h) != 1 || h[0].Host != "k8s://default/web" || h[0].State != "connected" {
		t.Fatalf("hosts %+v", h)
	}
	p.Close()
	if n := f.runningNodes(); n != 0 {
		t.Fatalf("%d node execs still running after Close", n)
	}

	// A fresh agentty finds the copy: no second tar.
	f.mu.Lock()
	f.calls = nil
	f.mu.Unlock()
	p2 := k8sPool(t, f, bin)
	startEcho(t, p2, "k8s://default/web/sidecar")
	want = []string{"sidecar: " + exe + " version", "sidecar: " + exe + " node"}
	if got := f.callLog(); !slices.Equal(got, want) {
		t.Fatalf("second start execs\n%q\nwant\n%q", got, want)
	}
}

// An agentty of the same version on the container's PATH is used as is;
// the pod's default-container annotation picks the container.
func TestK8s_OnPathAndDefaultContainer(t *testing.T) {
	bin, _ := staticELF(t)
	pod := runningPod("ns", "job", "main", "tools")
	pod.Annotations = map[string]string{defaultContainerAnnotation: "tools"}
	f := newFakePods(pod)
	f.onPath = true
	b, _ := loadBinary(bin)
	exe := privateDir("test", b) + "/agentty"
	startEcho(t, k8sPool(t, f, bin), "k8s://ns/job")
	want := []string{"tools: " + exe + " version", "tools: agentty version", "tools: agentty node"}
	if got := f.callLog(); !slices.Equal(got, want) {
		t.Fatalf("execs\n%q\nwant\n%q", got, want)
	}
}

// Every refusal names the pod or container and says what to do, as the
// link's one error record.
func TestK8s_Errors(t *testing.T) {
	bin, _ := staticELF(t)
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web", errors.New(`User "dev" cannot get resource "pods"`))
	execForbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods/exec"}, "web", errors.New(`User "dev" cannot create resource "pods/exec"`))
	for _, c := range []struct {
		name, host string
		setup      func(f *fakePods, pod *corev1.Pod)
		newAPIErr  error
		want       string
	}{
		{name: "no kubeconfig", host: "k8s://default/web", newAPIErr: errNoKubeconfig,
			want: "k8s://default/web: no Kubernetes configuration: set KUBECONFIG or write ~/.kube/config"},
		{name: "no pod", host: "k8s://default/nope",
			want: `no pod "nope" in namespace "default": check the name with kubectl get pods -n default (agentty never creates pods)`},
		{name: "get forbidden", host: "k8s://default/web", setup: func(f *fakePods, _ *corev1.Pod) { f.getErr = forbidden },
			want: `not allowed to read pod default/web: agentty needs RBAC get on pods and create on pods/exec in namespace "default"`},
		{name: "pending", host: "k8s://default/web", setup: func(_ *fakePods, p *corev1.Pod) { p.Status.Phase = corev1.PodPending },
			want: "pod default/web is Pending, not Running: wait for it (kubectl get pod -n default web)"},
		{name: "no such container", host: "k8s://default/web/db",
			want: `pod default/web has no container "db": its containers are app, sidecar; use k8s://default/web/CONTAINER`},
		{name: "container waiting", host: "k8s://default/web/sidecar", setup: func(_ *fakePods, p *corev1.Pod) {
			p.Status.ContainerStatuses[1].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
		}, want: `container "sidecar" in pod default/web is not running (waiting: CrashLoopBackOff)`},
		{name: "wrong architecture", host: "k8s://default/web", setup: func(f *fakePods, _ *corev1.Pod) { f.arch = "aarch64" },
			want: `container "app" in pod default/web runs on aarch64, but the agentty to copy in is built for amd64: give agentty serve -node-binary with a static agentty built with GOARCH=arm64`},
		{name: "no tar", host: "k8s://default/web", setup: func(f *fakePods, _ *corev1.Pod) { f.noTar = true },
			want: `container "app" in pod default/web has no tar to copy agentty in with: add tar to the image, or put a static agentty of this version on its PATH`},
		{name: "read-only tmp", host: "k8s://default/web", setup: func(f *fakePods, _ *corev1.Pod) { f.readOnly = true },
			want: "tar exited 2: tar: can't create directory '.agentty-x': Read-only file system: the container needs a writable /tmp"},
		{name: "exec forbidden", host: "k8s://default/web", setup: func(f *fakePods, _ *corev1.Pod) { f.execErr = execForbidden },
			want: `not allowed to exec in container "app" in pod default/web: agentty needs RBAC create on pods/exec in namespace "default"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			pod := runningPod("default", "web", "app", "sidecar")
			f := newFakePods(pod)
			if c.setup != nil {
				c.setup(f, pod)
			}
			l := &linker{}
			l.k8s.newAPI = func() (podAPI, error) {
				if c.newAPIErr != nil {
					return nil, c.newAPIErr
				}
				return f, nil
			}
			code, recs := runLink(t, l, c.host, bin, strings.NewReader(""), io.Discard)
			if code != 1 || len(recs) != 1 || recs[0].Proto != nodebackend.LinkProto || recs[0].Ready || !strings.Contains(recs[0].Error, c.want) {
				t.Fatalf("exit %d, records %+v\nwant one error containing %q", code, recs, c.want)
			}
			if n := f.runningNodes(); n != 0 {
				t.Fatalf("%d nodes running", n)
			}
		})
	}
}

// A container that stops under a running session ends it as lost, with
// what the API says about the container. (cat ends with the node: its
// stdin is the node's pipe.)
func TestK8s_ContainerStopsSessionLost(t *testing.T) {
	bin, _ := staticELF(t)
	pod := runningPod("default", "web", "app")
	f := newFakePods(pod)
	p := k8sPool(t, f, bin)
	pr, err := p.Start(backend.RemoteSpec{Host: "k8s://default/web", Argv: []string{"cat"}}, func(outlog.Stream, []byte) {})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	f.stop(t, pod, "Error", 137)
	done := make(chan backend.Exit, 1)
	go func() { ex, _ := pr.Wait(); done <- ex }()
	select {
	case ex := <-done:
		want := `container "app" in pod default/web stopped (Error, exit code 137)`
		if !strings.Contains(ex.Lost, want) {
			t.Fatalf("lost %q, want %q", ex.Lost, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end when its container stopped")
	}
	if h := p.Hosts(); len(h) != 1 || h[0].State != "lost" || !strings.Contains(h[0].LostReason, "exit code 137") {
		t.Fatalf("hosts %+v", h)
	}
}
