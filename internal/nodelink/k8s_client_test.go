package nodelink

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentty/agentty/internal/backend"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apiRequest is what the fake API server saw.
type apiRequest struct {
	method, path, query, auth, upgrade, protocol string
}

// fakeAPIServer answers GET of pod default/web (Running, container app),
// 404 for other pods, and 403 (RBAC) for every pods/exec upgrade, as an API
// server does for a user without create on pods/exec.
func fakeAPIServer(t *testing.T) (*httptest.Server, func() []apiRequest) {
	var mu sync.Mutex
	var seen []apiRequest
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, apiRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"),
			r.Header.Get("Upgrade"), strings.Join(append(r.Header.Values("Sec-Websocket-Protocol"), r.Header.Values("X-Stream-Protocol-Version")...), ",")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		status := func(code int, reason metav1.StatusReason, msg string) {
			w.WriteHeader(code)
			json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg})
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "/exec"):
			status(http.StatusForbidden, metav1.StatusReasonForbidden,
				`pods "web" is forbidden: User "dev" cannot create resource "pods/exec" in API group "" in the namespace "default"`)
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/default/pods/web":
			pod := runningPod("default", "web", "app")
			pod.TypeMeta = metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}
			json.NewEncoder(w).Encode(pod)
		default:
			status(http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf("pods %q not found", filepath.Base(r.URL.Path)))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []apiRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// useKubeconfig points KUBECONFIG at a file naming srv (and its CA) with a token,
// and HOME away from the user's ~/.kube.
func useKubeconfig(t *testing.T, srv *httptest.Server) {
	dir := t.TempDir()
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: dev
  user:
    token: secret-token
contexts:
- name: test
  context: {cluster: test, user: dev, namespace: default}
current-context: test
`, srv.URL, base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)
	t.Setenv("HOME", dir)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
}

// client-go finds the kubeconfig in KUBECONFIG, reads pods with its token,
// and builds the exec request kubectl exec does: WebSocket first, SPDY
// when the upgrade is refused, both to pods/exec with the command and the
// stdio flags; a 403 reads as RBAC.
func TestK8sClient_KubeconfigAndExecRequest(t *testing.T) {
	srv, seen := fakeAPIServer(t)
	useKubeconfig(t, srv)
	api, err := newClusterAPI()
	if err != nil {
		t.Fatal(err)
	}
	pod, err := api.getPod(t.Context(), "default", "web")
	if err != nil || pod.Name != "web" || pod.Status.Phase != corev1.PodRunning || len(pod.Spec.Containers) != 1 {
		t.Fatalf("pod %+v err %v", pod, err)
	}
	if _, err := api.getPod(t.Context(), "default", "gone"); err == nil || !isNotFound(err) {
		t.Fatalf("missing pod: err %v, want not found", err)
	}
	err = api.exec(t.Context(), "default", "web", "app", []string{"/tmp/x/agentty", "node"}, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !isForbidden(err) {
		t.Fatalf("exec err %v, want forbidden", err)
	}
	reqs := seen()
	if len(reqs) != 4 {
		t.Fatalf("err %v (%T)\nrequests %+v", err, err, reqs)
	}
	for _, r := range reqs {
		if r.auth != "Bearer secret-token" {
			t.Fatalf("request %+v without the kubeconfig's token", r)
		}
	}
	const query = "command=%2Ftmp%2Fx%2Fagentty&command=node&container=app&stderr=true&stdin=true&stdout=true"
	ws, sp := reqs[2], reqs[3]
	if ws.method != "GET" || ws.path != "/api/v1/namespaces/default/pods/web/exec" || ws.query != query ||
		!strings.EqualFold(ws.upgrade, "websocket") || !strings.Contains(ws.protocol, "v5.channel.k8s.io") {
		t.Fatalf("WebSocket request %+v", ws)
	}
	if sp.method != "POST" || sp.path != "/api/v1/namespaces/default/pods/web/exec" || sp.query != query ||
		sp.upgrade != "SPDY/3.1" || !strings.Contains(sp.protocol, "v4.channel.k8s.io") {
		t.Fatalf("SPDY fallback request %+v", sp)
	}
	// A probe without stdin asks for none.
	_ = api.exec(t.Context(), "default", "web", "app", []string{"uname", "-m"}, nil, io.Discard, io.Discard)
	if reqs = seen(); len(reqs) != 6 || reqs[4].query != "command=uname&command=-m&container=app&stderr=true&stdout=true" {
		t.Fatalf("probe requests %+v", reqs[4:])
	}
}

// Without any kubeconfig (and outside a cluster) the error says where
// agentty looked.
func TestK8sClient_NoKubeconfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("KUBECONFIG", filepath.Join(dir, "missing"))
	t.Setenv("HOME", dir)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if _, err := newClusterAPI(); err != errNoKubeconfig {
		t.Fatalf("err %v, want errNoKubeconfig", err)
	}
}

// Through the pool and the real client: a user without pods/exec gets the
// RBAC it needs named.
func TestK8sClient_PoolNamesMissingRBAC(t *testing.T) {
	srv, _ := fakeAPIServer(t)
	useKubeconfig(t, srv)
	bin, _ := staticELF(t)
	p := linkerPool(t, &linker{}, bin)
	_, err := p.Start(backend.RemoteSpec{Host: "k8s://default/web", Argv: []string{"true"}}, nil)
	const want = `not allowed to exec in container "app" in pod default/web: agentty needs RBAC create on pods/exec in namespace "default"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v\nwant %q", err, want)
	}
	_, err = p.Start(backend.RemoteSpec{Host: "k8s://default/gone", Argv: []string{"true"}}, nil)
	if err == nil || !strings.Contains(err.Error(), `no pod "gone" in namespace "default"`) {
		t.Fatalf("err %v", err)
	}
}
