package backend

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentty/agentty/internal/outlog"
)

// pipeSize is F_GETPIPE_SZ of f, read without switching f to blocking
// mode (File.Fd would).
func pipeSize(t *testing.T, f *os.File) int {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	n, serr := 0, error(nil)
	if err := rc.Control(func(fd uintptr) { n, serr = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) }); err != nil || serr != nil {
		t.Fatalf("F_GETPIPE_SZ: %v %v", err, serr)
	}
	return n
}

func TestGrowPipe_Budget(t *testing.T) {
	if n := bigPipes.Load(); n != 0 {
		t.Fatalf("%d grown pipes left by earlier tests", n)
	}
	var files []*os.File
	t.Cleanup(func() {
		for _, f := range files {
			f.Close()
		}
	})
	grow := func() (*os.File, bool, bool) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, r, w)
		rc, _ := r.SyscallConn()
		var grew, retry bool
		_ = rc.Control(func(fd uintptr) { grew, retry = growPipe(fd) })
		return r, grew, retry
	}
	for i := range maxBigPipes {
		r, grew, _ := grow()
		if !grew || pipeSize(t, r) != bigPipeSize {
			t.Fatalf("pipe %d: grew %v, size %d; want %d", i, grew, pipeSize(t, r), bigPipeSize)
		}
	}
	r, grew, retry := grow()
	if grew || !retry || pipeSize(t, r) == bigPipeSize {
		t.Fatalf("pipe over the budget: grew %v retry %v size %d; want the default size and a retry later", grew, retry, pipeSize(t, r))
	}
	if n := bigPipes.Load(); n != maxBigPipes {
		t.Fatalf("budget holds %d, want %d", n, maxBigPipes)
	}
	shrinkDone() // one grown pipe's pump ended
	rc, _ := r.SyscallConn()
	_ = rc.Control(func(fd uintptr) { grew, _ = growPipe(fd) })
	if !grew || pipeSize(t, r) != bigPipeSize {
		t.Fatalf("after a unit came back: grew %v size %d", grew, pipeSize(t, r))
	}
	for range maxBigPipes {
		shrinkDone()
	}
}

// A pipe found full grows before its bytes reach the sink, keeps every
// byte in order, and gives its budget unit back when its pump ends.
func TestPump_FullPipeGrows(t *testing.T) {
	if n := bigPipes.Load(); n != 0 {
		t.Fatalf("%d grown pipes left by earlier tests", n)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	def := pipeSize(t, r)
	if def != pumpBufSize {
		t.Fatalf("a new pipe holds %d bytes, want the kernel's default %d (is the user over fs/pipe-user-pages-soft?)", def, pumpBufSize)
	}
	first := bytes.Repeat([]byte("a"), def)
	if n, err := w.Write(first); err != nil || n != def {
		t.Fatalf("filling the pipe: %d, %v", n, err)
	}
	var (
		mu        sync.Mutex
		got       bytes.Buffer
		sizeAtOne int
	)
	pu, err := newPump(r, outlog.Stdout, func(_ outlog.Stream, p []byte) {
		mu.Lock()
		defer mu.Unlock()
		if got.Len() == 0 {
			sizeAtOne = pipeSize(t, r)
		}
		got.Write(p)
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	pu.grow = true
	go pu.run()
	rest := bytes.Repeat([]byte("b"), 3*bigPipeSize)
	if n, err := w.Write(rest); err != nil || n != len(rest) {
		t.Fatalf("writing on: %d, %v", n, err)
	}
	w.Close()
	<-pu.done
	mu.Lock()
	defer mu.Unlock()
	if sizeAtOne != bigPipeSize {
		t.Fatalf("pipe size when its first (full) read reached the sink: %d, want %d", sizeAtOne, bigPipeSize)
	}
	if want := append(first, rest...); !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("pump passed on %d bytes, want %d in order", got.Len(), len(want))
	}
	if n := bigPipes.Load(); n != 0 {
		t.Fatalf("budget holds %d after the pump ended, want 0", n)
	}
}

// Through a real process: a flood of a pipe session grows nothing past its
// end, and every byte is counted.
func TestPipe_FloodReturnsItsBudget(t *testing.T) {
	const size = 20_000_000
	var (
		mu sync.Mutex
		n  int
	)
	p, err := StartPipe(spec("head -c 20000000 /dev/zero"), direct, func(_ outlog.Stream, b []byte) {
		mu.Lock()
		n += len(b)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if ex, err := p.Wait(); err != nil || ex.Code != 0 {
		t.Fatalf("Wait = %+v, %v", ex, err)
	}
	select {
	case <-p.Drained():
	case <-time.After(10 * time.Second):
		t.Fatal("pipes never reached EOF")
	}
	mu.Lock()
	defer mu.Unlock()
	if n != size {
		t.Fatalf("counted %d bytes, want %d", n, size)
	}
	if b := bigPipes.Load(); b != 0 {
		t.Fatalf("budget holds %d after the pumps ended, want 0", b)
	}
}
