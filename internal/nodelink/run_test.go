package nodelink

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/agentty/agentty/internal/nodebackend"
	corev1 "k8s.io/api/core/v1"
)

// nopCloser is an io.WriteCloser over w.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// runLink runs l's relay for host to its end and returns its exit status
// and status records.
func runLink(t *testing.T, l *linker, host, bin string, in io.Reader, out io.Writer) (int, []nodebackend.LinkStatus) {
	t.Helper()
	var status bytes.Buffer
	code := l.run(host, &Options{Version: "test", Binary: bin}, in, nopCloser{out}, &status)
	var recs []nodebackend.LinkStatus
	sc := bufio.NewScanner(&status)
	for sc.Scan() {
		var r nodebackend.LinkStatus
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("status line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return code, recs
}

// The relay: a Ready record naming the copy, the node's hello on out, and
// when the server ends the input, a last record with no Why (the end was
// the server's doing) and exit 0.
func TestRun_RelaysUntilInputEnds(t *testing.T) {
	bin, _ := staticELF(t)
	f := newFakePods(runningPod("default", "web", "app"))
	l := &linker{}
	l.k8s.newAPI = func() (podAPI, error) { return f, nil }
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	type result struct {
		code int
		recs []nodebackend.LinkStatus
	}
	done := make(chan result, 1)
	go func() {
		code, recs := runLink(t, l, "k8s://default/web", bin, inR, outW)
		outW.Close()
		done <- result{code, recs}
	}()
	// The node greets first: a message frame holding its hello.
	hello := make([]byte, 5)
	if _, err := io.ReadFull(outR, hello); err != nil || hello[0] != 'M' {
		t.Fatalf("first frame %q %v", hello, err)
	}
	body := make([]byte, int(hello[1])<<24|int(hello[2])<<16|int(hello[3])<<8|int(hello[4]))
	if _, err := io.ReadFull(outR, body); err != nil || !bytes.Contains(body, []byte(`"hello"`)) {
		t.Fatalf("hello %q %v", body, err)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	r := <-done
	b, _ := loadBinary(bin)
	exe := privateDir("test", b) + "/agentty"
	if r.code != 0 || len(r.recs) != 2 || !r.recs[0].Ready || r.recs[0].Proto != nodebackend.LinkProto ||
		r.recs[0].Exe != exe || r.recs[0].Copied != b.size || r.recs[1].Why != "" || r.recs[1].Ready {
		t.Fatalf("exit %d, records %+v", r.code, r.recs)
	}
	if n := f.runningNodes(); n != 0 {
		t.Fatalf("%d node execs still running after the input ended", n)
	}
}

// A target that ends under the node: the last record says what the
// engine saw.
func TestRun_TargetEndsWhySaid(t *testing.T) {
	bin, _ := staticELF(t)
	pod := runningPod("default", "web", "app")
	f := newFakePods(pod)
	l := &linker{}
	l.k8s.newAPI = func() (podAPI, error) { return f, nil }
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	done := make(chan []nodebackend.LinkStatus, 1)
	go func() {
		code, recs := runLink(t, l, "k8s://default/web", bin, inR, outW)
		outW.Close()
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		done <- recs
	}()
	if _, err := io.ReadFull(outR, make([]byte, 5)); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, outR)
	f.mu.Lock()
	pod.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}}
	node := f.nodes[0]
	f.mu.Unlock()
	if err := node.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	recs := <-done
	const want = `container "app" in pod default/web stopped (OOMKilled, exit code 137)`
	if len(recs) != 2 || recs[1].Why != want {
		t.Fatalf("records %+v\nwant a last one with Why %q", recs, want)
	}
}
