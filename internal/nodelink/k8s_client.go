package nodelink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/streaming/pkg/httpstream"
)

// podAPI is what the Kubernetes engine needs from a cluster: read a pod and
// exec in one of its containers. clusterAPI is the client-go one; tests
// give a fake, so the engine's plumbing is tested without a cluster.
type podAPI interface {
	// getPod reads the pod ns/name.
	getPod(ctx context.Context, ns, name string) (*corev1.Pod, error)
	// exec runs argv in the container (tty off) with the given stdio until
	// it exits or ctx ends; a non-zero exit is an exitCoder error.
	exec(ctx context.Context, ns, pod, container string, argv []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// exitCoder is the error of a command that ran and exited non-zero
// (client-go's exec.CodeExitError).
type exitCoder interface{ ExitStatus() int }

// errNoKubeconfig is returned when no kubeconfig is found anywhere.
var errNoKubeconfig = errors.New("no Kubernetes configuration: set KUBECONFIG or write ~/.kube/config (inside a pod, its service account is used)")

// clusterAPI reaches the cluster the kubeconfig names (client-go's default
// loading rules: KUBECONFIG, ~/.kube/config, else in-cluster).
type clusterAPI struct {
	cfg    *rest.Config
	core   *rest.RESTClient // core/v1
	params runtime.ParameterCodec
}

// newClusterAPI loads the kubeconfig the usual way.
func newClusterAPI() (*clusterAPI, error) {
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, errNoKubeconfig
		}
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return newClusterAPIFor(cfg)
}

func newClusterAPIFor(cfg *rest.Config) (*clusterAPI, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = "agentty"
	// A plain REST client with a scheme of core/v1 only: the typed
	// clientset (even core/v1's alone) and kubernetes/scheme link every
	// API group and apply configuration into the binary, doubling its size
	// for two calls.
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		return nil, err
	}
	rc := rest.CopyConfig(cfg)
	rc.APIPath = "/api"
	rc.GroupVersion = &corev1.SchemeGroupVersion
	rc.NegotiatedSerializer = serializer.NewCodecFactory(s).WithoutConversion()
	core, err := rest.RESTClientFor(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return &clusterAPI{cfg: cfg, core: core, params: runtime.NewParameterCodec(s)}, nil
}

func (a *clusterAPI) getPod(ctx context.Context, ns, name string) (*corev1.Pod, error) {
	var pod corev1.Pod
	if err := a.core.Get().Namespace(ns).Resource("pods").Name(name).Do(ctx).Into(&pod); err != nil {
		return nil, err
	}
	return &pod, nil
}

// execURL is the pods/exec request for argv, as kubectl exec builds it.
// Stdin is asked for only when there is one: a probe without it then sees
// no open stdin in the container.
func (a *clusterAPI) execURL(ns, pod, container string, argv []string, stdin bool) *url.URL {
	return a.core.Post().Namespace(ns).Resource("pods").Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: argv,
			Stdin: stdin, Stdout: true, Stderr: true, TTY: false}, a.params).URL()
}

// exec streams over WebSocket (Kubernetes 1.29+) and falls back to SPDY
// when the API server or a proxy refuses the WebSocket upgrade, as kubectl
// does. The upgrade error is k8s.io/streaming's: apimachinery's
// httpstream.IsUpgradeFailure does not match it, and the fallback would
// never happen.
func (a *clusterAPI) exec(ctx context.Context, ns, pod, container string, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	u := a.execURL(ns, pod, container, argv, stdin != nil)
	ws, err := remotecommand.NewWebSocketExecutor(a.cfg, "GET", u.String())
	if err != nil {
		return err
	}
	sp, err := remotecommand.NewSPDYExecutor(a.cfg, "POST", u)
	if err != nil {
		return err
	}
	ex, err := remotecommand.NewFallbackExecutor(ws, sp, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return err
	}
	return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

// isForbidden says whether err is the API server's 403 (RBAC).
func isForbidden(err error) bool {
	return apierrors.IsForbidden(err) || strings.Contains(err.Error(), "forbidden")
}

// isNotFound says whether err is the API server's 404.
func isNotFound(err error) bool { return apierrors.IsNotFound(err) }
