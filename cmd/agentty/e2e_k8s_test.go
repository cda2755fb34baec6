//go:build k8s_e2e

package main

// The same tools with host k8s://NAMESPACE/POD/CONTAINER against a real
// cluster. Behind the k8s_e2e build tag, so a CI run without a cluster
// neither skips nor fails them. Run:
//
//	KUBECONFIG=~/.kube/config go test -tags k8s_e2e -run TestK8s ./cmd/agentty
//
// The kubeconfig's user needs create/get/delete on pods and create on
// pods/exec in AGENTTY_K8S_NAMESPACE (default "default"). Each test creates
// its own pod of AGENTTY_K8S_IMAGE (default python:3.12-slim: python3,
// sh, tar, coreutils) and deletes it.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/agentty/agentty/internal/mcpserver"
)

type k8sTestEnv struct {
	cfg   *rest.Config
	core  *corev1client.CoreV1Client
	ns    string
	image string
	node  string // static agentty for AGENTTY_NODE_BINARY
	err   error
}

var (
	k8sOnce sync.Once
	k8sEnvV k8sTestEnv
)

// k8sEnv connects to the cluster KUBECONFIG names and builds the static
// node binary once. No cluster is a failure: the build tag asked for one.
func k8sEnv(t *testing.T) *k8sTestEnv {
	t.Helper()
	k8sOnce.Do(func() { k8sEnvV = setupK8s() })
	if k8sEnvV.err != nil {
		t.Fatal(k8sEnvV.err)
	}
	return &k8sEnvV
}

func setupK8s() k8sTestEnv {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(clientcmd.NewDefaultClientConfigLoadingRules(), nil).ClientConfig()
	if err != nil {
		return k8sTestEnv{err: fmt.Errorf("the k8s_e2e tests need a cluster: set KUBECONFIG (%v)", err)}
	}
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return k8sTestEnv{err: err}
	}
	env := k8sTestEnv{cfg: cfg, core: core, ns: cmp(os.Getenv("AGENTTY_K8S_NAMESPACE"), "default"),
		image: cmp(os.Getenv("AGENTTY_K8S_IMAGE"), "python:3.12-slim")}
	dir, err := os.MkdirTemp("", "agk")
	if err != nil {
		return k8sTestEnv{err: err}
	}
	atExit(func() { os.RemoveAll(dir) })
	env.node = filepath.Join(dir, "agentty")
	build := exec.Command("go", "build", "-o", env.node, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return k8sTestEnv{err: fmt.Errorf("static build: %v: %s", err, out)}
	}
	return env
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// pod creates a pod that only sleeps, waits (by a watch) until it runs, and
// deletes it when t ends.
func (e *k8sTestEnv) pod(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "agentty-e2e-" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	zero := int64(0)
	_, err := e.core.Pods(e.ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{Name: "main", Image: e.image, Command: []string{"sleep", "100000"}, WorkingDir: "/root"}}}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = e.core.Pods(e.ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	})
	w, err := e.core.Pods(e.ns).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if p, ok := ev.Object.(*corev1.Pod); ok && p.Status.Phase == corev1.PodRunning {
			return name
		}
	}
	t.Fatalf("pod %s/%s did not run within 5 minutes", e.ns, name)
	return ""
}

// procs lists the commands running in the pod's container, but the
// listing's own.
func (e *k8sTestEnv) procs(t *testing.T, pod string) []string {
	t.Helper()
	const script = `for f in /proc/[0-9]*/cmdline; do [ "${f#/proc/}" = "$$/cmdline" ] || { tr '\0' ' ' < "$f"; echo; }; done`
	out := e.exec(t, pod, "sh", "-c", script)
	var cmds []string
	for l := range strings.Lines(out) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "tr ") {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// exec runs argv in the pod and returns its stdout.
func (e *k8sTestEnv) exec(t *testing.T, pod string, argv ...string) string {
	t.Helper()
	req := e.core.RESTClient().Post().Namespace(e.ns).Resource("pods").Name(pod).SubResource("exec").
		Param("container", "main").Param("stdout", "true").Param("stderr", "true")
	for _, a := range argv {
		req = req.Param("command", a)
	}
	ex, err := remotecommand.NewWebSocketExecutor(e.cfg, "GET", req.URL().String())
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out, Stderr: &errb}); err != nil {
		t.Fatalf("exec %q: %v: %s", argv, err, errb.String())
	}
	return out.String()
}

// serve starts agentty serve with the cluster's kubeconfig and the static
// build as the node binary.
func (e *k8sTestEnv) serve(t *testing.T) *server {
	t.Helper()
	return startServerWith(t, func(c *exec.Cmd) {
		c.Env = append(c.Env, "AGENTTY_NODE_BINARY="+e.node, "AGENTTY_NODE_LINK="+staticLink(e.node))
	})
}

func TestK8s_REPLRoundTrips(t *testing.T) {
	e := k8sEnv(t)
	pod := e.pod(t)
	s := e.serve(t)
	host := "k8s://" + e.ns + "/" + pod + "/main"
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": host, "argv": []string{"python3", "-q"}}, &r)
	if r.Reason != "awaiting_input" || r.Output != ">>> " || r.Host != host {
		t.Fatalf("start: reason=%s output=%q host=%q detail=%q", r.Reason, r.Output, r.Host, r.StateDetail)
	}
	for i := range 20 {
		var sr mcpserver.SendResult
		s.call("send_input", map[string]any{"session_id": r.SessionID, "text": fmt.Sprintf("print(%d*7)", i), "enter": true}, &sr)
		if want := fmt.Sprintf("%d\n>>> ", i*7); sr.Output != want || sr.Reason != "awaiting_input" {
			t.Fatalf("round trip %d: output=%q reason=%s, want %q awaiting_input", i, sr.Output, sr.Reason, want)
		}
	}
	var hosts mcpserver.HostsResult
	s.call("list_hosts", nil, &hosts)
	if len(hosts.Hosts) != 1 || hosts.Hosts[0].Host != host || hosts.Hosts[0].State != "connected" || !slices.Contains(hosts.Hosts[0].Sessions, r.SessionID) {
		t.Fatalf("list_hosts: %+v", hosts.Hosts)
	}
}

func TestK8s_TerminateLeavesNothing(t *testing.T) {
	e := k8sEnv(t)
	pod := e.pod(t)
	s := e.serve(t)
	var r mcpserver.StartResult
	s.call("start_process", map[string]any{"host": "k8s://" + e.ns + "/" + pod, "command": "sleep 73519 & sleep 73520; echo", "mode": "pipe", "timeout_ms": 0}, &r)
	s.call("terminate_process", map[string]any{"session_id": r.SessionID}, nil)
	if ps := e.procs(t, pod); len(ps) != 2 || ps[0] != "sleep 100000" || !strings.HasSuffix(ps[1], "/agentty node") {
		t.Fatalf("after terminate the pod runs %q, want only its sleep and the node", ps)
	}
	s.close()
	// The node ends when its exec's stdin ends; the kubelet reports that
	// after the stream closes, so this polls the process list.
	deadline := time.Now().Add(30 * time.Second)
	for ps := e.procs(t, pod); !slices.Equal(ps, []string{"sleep 100000"}); ps = e.procs(t, pod) {
		if time.Now().After(deadline) {
			t.Fatalf("after agentty closed the pod still runs %q", ps)
		}
		time.Sleep(100 * time.Millisecond) // a process list is a snapshot: nothing to wait on
	}
}

func TestK8s_BinaryCopiedOnce(t *testing.T) {
	e := k8sEnv(t)
	pod := e.pod(t)
	fi, err := os.Stat(e.node)
	if err != nil {
		t.Fatal(err)
	}
	var stats []string
	for range 2 {
		s := e.serve(t)
		var r mcpserver.StartResult
		s.call("start_process", map[string]any{"host": "k8s://" + e.ns + "/" + pod, "argv": []string{"true"}, "mode": "pipe"}, &r)
		var exe string
		for _, c := range e.procs(t, pod) {
			if strings.HasSuffix(c, "/agentty node") {
				exe = strings.TrimSuffix(c, " node")
			}
		}
		if !strings.HasPrefix(exe, "/tmp/.agentty-") {
			t.Fatalf("no copied node running in %q", e.procs(t, pod))
		}
		stats = append(stats, strings.TrimSpace(e.exec(t, pod, "stat", "-c", "%s %y", exe)))
		s.close()
	}
	if !strings.HasPrefix(stats[0], fmt.Sprint(fi.Size())+" ") || stats[0] != stats[1] {
		t.Fatalf("copies (size mtime): %q, binary %d bytes: the second start must reuse the first copy", stats, fi.Size())
	}
}

func TestK8s_Errors(t *testing.T) {
	e := k8sEnv(t)
	s := e.serve(t)
	msg := s.toolError("start_process", map[string]any{"host": "k8s://" + e.ns + "/no-such-pod-agentty", "argv": []string{"true"}})
	if want := fmt.Sprintf(`no pod "no-such-pod-agentty" in namespace %q`, e.ns); !strings.Contains(msg, want) {
		t.Fatalf("missing pod: %q, want %q", msg, want)
	}
	pod := e.pod(t)
	msg = s.toolError("start_process", map[string]any{"host": "k8s://" + e.ns + "/" + pod + "/nope", "argv": []string{"true"}})
	if want := `has no container "nope": its containers are main`; !strings.Contains(msg, want) {
		t.Fatalf("missing container: %q, want %q", msg, want)
	}
}
