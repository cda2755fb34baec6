package nodelink

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/agentty/agentty/internal/nodebackend"
)

// nopCloser is an io.WriteCloser over w.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// runLink runs l's relay for host to its end and returns its exit status
// and status records.
func runLink(t *testing.T, l *linker, host, bin string, in io.Reader, out io.Writer) (int, []nodebackend.LinkStatus) {
	t.Helper()
	code, recs, err := relay(l, host, bin, in, out)
	if err != nil {
		t.Fatal(err)
	}
	return code, recs
}

// relay is runLink for goroutines other than the test's.
func relay(l *linker, host, bin string, in io.Reader, out io.Writer) (int, []nodebackend.LinkStatus, error) {
	var status bytes.Buffer
	code := l.run(host, &Options{Version: "test", Binary: bin}, in, nopCloser{out}, &status)
	var recs []nodebackend.LinkStatus
	sc := bufio.NewScanner(&status)
	for sc.Scan() {
		var r nodebackend.LinkStatus
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return code, recs, fmt.Errorf("status line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return code, recs, nil
}

// linkRun is a relay of the fake cluster's pod default/web running over
// pipes: the test writes the node's input and reads its output.
type linkRun struct {
	in   *io.PipeWriter
	out  *io.PipeReader
	done chan linkResult
}

type linkResult struct {
	code int
	recs []nodebackend.LinkStatus
}

func startRun(t *testing.T, f *fakePods, bin string) *linkRun {
	l := &linker{}
	l.k8s.newAPI = func() (podAPI, error) { return f, nil }
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &linkRun{in: inW, out: outR, done: make(chan linkResult, 1)}
	t.Cleanup(func() { inW.Close() })
	go func() {
		code, recs, err := relay(l, "k8s://default/web", bin, inR, outW)
		outW.Close()
		if err != nil {
			t.Error(err)
		}
		r.done <- linkResult{code, recs}
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
	go io.Copy(io.Discard, outR)
	return r
}

// The relay: a Ready record naming the copy, the node's hello on out, and
// when the server ends the input, a last record with no Why (the end was
// the server's doing) and exit 0.
func TestRun_RelaysUntilInputEnds(t *testing.T) {
	bin, _ := staticELF(t)
	f := newFakePods(runningPod("default", "web", "app"))
	run := startRun(t, f, bin)
	run.in.Close()
	r := <-run.done
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
// engine saw, and the link exits 0.
func TestRun_TargetEndsWhySaid(t *testing.T) {
	bin, _ := staticELF(t)
	pod := runningPod("default", "web", "app")
	f := newFakePods(pod)
	run := startRun(t, f, bin)
	f.stop(t, pod, "OOMKilled", 137)
	r := <-run.done
	const want = `container "app" in pod default/web stopped (OOMKilled, exit code 137)`
	if r.code != 0 || len(r.recs) != 2 || r.recs[1].Why != want {
		t.Fatalf("exit %d, records %+v\nwant a last one with Why %q", r.code, r.recs, want)
	}
}
