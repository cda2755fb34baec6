package nodelink

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentty/agentty/internal/nodebackend"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilexec "k8s.io/client-go/util/exec"
)

// fakePods is a cluster of pods in memory: its exec answers the binary
// check's probes, unpacks the tar copy, and runs `agentty node` as the
// test binary (see TestMain) over the very stdio the engine gives it.
type fakePods struct {
	arch     string // uname -m
	onPath   bool   // an `agentty version` of this build on PATH
	noTar    bool
	readOnly bool  // tar fails as on a read-only /tmp
	execErr  error // every exec fails so (e.g. RBAC)

	mu      sync.Mutex
	pods    map[string]*corev1.Pod // guarded by mu; by ns/name
	getErr  error                  // guarded by mu
	calls   []string               // guarded by mu; "CONTAINER: ARGV..."
	files   map[string][]byte      // guarded by mu; what tar unpacked, by path
	modes   map[string]int64       // guarded by mu
	running int                    // guarded by mu; node execs not returned
	nodes   []*exec.Cmd            // guarded by mu
}

func newFakePods(pods ...*corev1.Pod) *fakePods {
	f := &fakePods{arch: "x86_64", pods: map[string]*corev1.Pod{}, files: map[string][]byte{}, modes: map[string]int64{}}
	for _, p := range pods {
		f.pods[p.Namespace+"/"+p.Name] = p
	}
	return f
}

// runningPod is a Running pod with running containers.
func runningPod(ns, name string, containers ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c})
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: c,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	}
	return p
}

func (f *fakePods) getPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.getErr != nil {
		return nil, f.getErr
	}
	p := f.pods[ns+"/"+name]
	if p == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	}
	return p.DeepCopy(), nil
}

var errNotFoundInPath = errors.New(`exec: executable file not found in $PATH: unknown`)

func (f *fakePods) exec(ctx context.Context, ns, pod, ctr string, argv []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f.mu.Lock()
	f.calls = append(f.calls, ctr+": "+strings.Join(argv, " "))
	f.mu.Unlock()
	if f.execErr != nil {
		return f.execErr
	}
	switch {
	case len(argv) == 2 && argv[1] == "version":
		f.mu.Lock()
		_, copied := f.files[strings.TrimPrefix(argv[0], "/tmp/")]
		f.mu.Unlock()
		if copied || argv[0] == "agentty" && f.onPath {
			io.WriteString(stdout, "agentty test\n")
			return nil
		}
		return errNotFoundInPath
	case argv[0] == "uname":
		io.WriteString(stdout, f.arch+"\n")
		return nil
	case argv[0] == "tar":
		if f.noTar {
			return errNotFoundInPath
		}
		if f.readOnly {
			io.WriteString(stderr, "tar: can't create directory '.agentty-x': Read-only file system")
			return utilexec.CodeExitError{Err: errors.New("command terminated with non-zero exit code"), Code: 2}
		}
		return f.untar(stdin)
	case len(argv) == 2 && argv[1] == "node":
		return f.node(ctx, argv[0], stdin, stdout, stderr)
	}
	return fmt.Errorf("fake exec: unexpected %q", argv)
}

func (f *fakePods) untar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		f.mu.Lock()
		f.files[h.Name], f.modes[h.Name] = b, h.Mode
		f.mu.Unlock()
	}
}

// node runs the test binary as the node; it must be the copied path or
// the one on PATH.
func (f *fakePods) node(ctx context.Context, exe string, stdin io.Reader, stdout, stderr io.Writer) error {
	f.mu.Lock()
	_, copied := f.files[strings.TrimPrefix(exe, "/tmp/")]
	f.mu.Unlock()
	if !copied && !(exe == "agentty" && f.onPath) {
		return errNotFoundInPath
	}
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), nodeEnv+"=1")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A real exec stream ends with the process whether or not its stdin
	// ended, so stdin is copied outside os/exec, whose Wait would wait for
	// the copier. The copier ends when the engine closes stdin, which it
	// does when the exec returns.
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		io.Copy(in, stdin)
		in.Close()
	}()
	f.mu.Lock()
	f.running++
	f.nodes = append(f.nodes, cmd)
	f.mu.Unlock()
	err = cmd.Wait()
	f.mu.Lock()
	f.running--
	f.mu.Unlock()
	return err
}

func (f *fakePods) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakePods) runningNodes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running
}

// staticELF writes a small static x86-64 ELF (no interpreter) to copy in:
// the fake never runs it, it checks the bytes that arrive.
func staticELF(t *testing.T) (string, [32]byte) {
	t.Helper()
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, elf.Header64{
		Ident: [16]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)},
		Type:  uint16(elf.ET_EXEC), Machine: uint16(elf.EM_X86_64), Version: uint32(elf.EV_CURRENT),
		Phoff: 64, Ehsize: 64, Phentsize: 56, Phnum: 1})
	binary.Write(&b, binary.LittleEndian, elf.Prog64{Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X)})
	for i := range 200000 {
		b.WriteByte(byte(i * 7))
	}
	p := filepath.Join(t.TempDir(), "agentty")
	if err := os.WriteFile(p, b.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	return p, sha256.Sum256(b.Bytes())
}

// stop ends the pod's first container as the kubelet would report it and
// kills the node running there.
func (f *fakePods) stop(t *testing.T, pod *corev1.Pod, reason string, code int32) {
	t.Helper()
	f.mu.Lock()
	pod.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code}}
	node := f.nodes[0]
	f.mu.Unlock()
	if err := node.Process.Kill(); err != nil {
		t.Fatal(err)
	}
}

// k8sPool is a pool whose nodes are reached in process by a linker whose
// Kubernetes engine talks to f.
func k8sPool(t *testing.T, f *fakePods, bin string) *nodebackend.Pool {
	l := &linker{}
	l.k8s.newAPI = func() (podAPI, error) { return f, nil }
	return linkerPool(t, l, bin)
}

// linkerPool is a pool whose nodes are reached in process by l.
func linkerPool(t *testing.T, l *linker, bin string) *nodebackend.Pool {
	o := &Options{Version: "test", Binary: bin}
	p := nodebackend.NewPool(&nodebackend.Options{Version: "test", Dial: func(ctx context.Context, host string) (nodebackend.Stream, error) {
		s, _, err := l.dial(ctx, host, o)
		return s, err
	}})
	t.Cleanup(func() {
		p.Close()
		l.docker.close()
	})
	return p
}
